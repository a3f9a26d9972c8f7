// Terminal replay speed: a ~30-second interactive vim session, recorded here
// by typing into vim key by key with human pauses, is replayed against a fresh
// vim. Inputs go out when the screen matches, not after the recorded delays,
// so the replay should take a small fraction of the recording.
// Target: replay time, program start excluded, under 5% of the recorded duration.
// RECORD_SECONDS (default 30) sets the length of the session.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCast, recordScript, replayTerminal } from '../dist/index.js';
import { median, row } from './lib.mjs';

const RECORD_SECONDS = Number(process.env.RECORD_SECONDS ?? 30);
const RUNS = Number(process.env.RUNS ?? 7);
const dir = mkdtempSync(join(tmpdir(), 'tapedeck-bench-replay-'));
const cast = join(dir, 'vim-session.cast');
writeFileSync(join(dir, 'notes.txt'), Array.from({ length: 40 }, (_, i) => `note ${i + 1}: something to edit`).join('\n') + '\n');

// A session: move around, insert text key by key, search, delete, undo, set an option, quit without saving.
const keys = [
  ...'jjjjj', 'ctrl+d', ...'kkk', 'G', 'g', 'g', 'o', ...'A line typed by a person, one key at a time.', 'Escape',
  '/', ...'note 20', 'Enter', ...'dd', 'u', ...'wcw', ...'changed', 'Escape', ...'$', 'x', 'x', 'u',
  ':', ...'set number', 'Enter', ...'10G', ':', 'q', '!', 'Enter',
];
// Keys are typed ~every 230 ms on average with a few longer "thinking" pauses; scaled to RECORD_SECONDS.
const thinking = new Set([12, 50, 60, 75]);
const weights = keys.map((_, i) => (thinking.has(i) ? 8 : 1 + ((i * 7) % 5) / 4));
const settleMs = 50;
const budgetMs = RECORD_SECONDS * 1000 - keys.length * (settleMs + 5) - 600;
const unit = Math.max(0, budgetMs) / weights.reduce((a, b) => a + b, 0);
const steps = [{ waitFor: 'notes.txt' }];
keys.forEach((key, i) => {
  steps.push({ pause: Math.round(weights[i] * unit) });
  if (i === 30) steps.push({ marker: 'typed' });
  steps.push(key.length > 1 ? { press: key } : { type: key });
});

console.log(`recording a ${RECORD_SECONDS}-second vim session (${keys.length} keys)...`);
await recordScript({ out: cast, command: 'vim', args: ['-u', 'NONE', '-i', 'NONE', '-n', 'notes.txt'], cwd: dir, rows: 24, cols: 80, steps, settleMs });
const { events } = await readCast(cast);
const recordedMs = events.at(-1).time * 1000;

const runs = [];
for (let i = 0; i < RUNS; i++) {
  // vim's undo message on the last line says how long ago the change was ("1 second ago"): a clock,
  // masked as a user would (a rectangle over the message line, since its length changes too).
  const r = await replayTerminal(cast, { cwd: dir, mask: [{ row: 23, col: 0, width: 80 }] });
  if (r.drifts.length > 0) {
    console.error(r.drifts.map((d) => `${d.title}\n${d.details.join('\n')}`).join('\n\n'));
    throw new Error(`replay ${i + 1} drifted`);
  }
  runs.push(r);
}
rmSync(dir, { recursive: true, force: true });

const total = median(runs.map((r) => r.durationMs));
const startup = median(runs.map((r) => r.startupMs));
const replay = median(runs.map((r) => r.durationMs - r.startupMs));
const ratio = replay / recordedMs;
console.log(`vim session: ${events.filter((e) => e.code === 'i').length} inputs, ${events.filter((e) => e.code === 'o').length} outputs, recorded ${(recordedMs / 1000).toFixed(1)} s`);
console.log(`replay, median of ${RUNS}: total ${total.toFixed(0)} ms, program start ${startup.toFixed(0)} ms, steps ${replay.toFixed(0)} ms`);
console.log(`ratio (replay without start / recorded): ${(ratio * 100).toFixed(2)}% (target < 5%) ${ratio < 0.05 ? 'OK' : 'SLOW'}`);
process.exitCode = ratio < 0.05 ? 0 : 1;
row({ path: 'terminal replay of a ~30 s vim session (steps only)', tapedeck: replay, baseline: recordedMs, unit: 'ms', target: 0.05, note: 'the recorded duration' });
