// GIF export cost: a ~30-second interactive vim session, recorded here by
// typing into vim key by key with human pauses, exported with
// `tapedeck export --format gif` (the bin, process start included).
// Target: at most 5% of the session's recorded duration.
// The row is the export process's CPU time (user + system, from process start
// to exit: everything the export costs the machine). Its wall time is printed
// beside it, with the load average: on a quiet machine the two agree within a
// few percent (the export is one thread; its only waits are the file's writes
// and fsync), while other jobs on the machine stretch the wall time and not the
// CPU time, so a loaded run measured 17.8% wall against 2.9% CPU.
// RECORD_SECONDS (default 30) sets the length of the session, RUNS the runs (median).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCast, recordScript } from '../dist/index.js';
import { median, row } from './lib.mjs';

const RECORD_SECONDS = Number(process.env.RECORD_SECONDS ?? 30);
const RUNS = Number(process.env.RUNS ?? 5);
const BIN = join(import.meta.dirname, '../dist/bundle/tapedeck.js');
const dir = mkdtempSync(join(tmpdir(), 'tapedeck-bench-gif-'));
const cast = join(dir, 'vim-session.cast');
const gif = join(dir, 'session.gif');
writeFileSync(join(dir, 'notes.txt'), Array.from({ length: 40 }, (_, i) => `note ${i + 1}: something to edit`).join('\n') + '\n');

// Move around, insert text key by key, search, delete, undo, set an option, quit without saving.
const keys = [
  ...'jjjjj', 'ctrl+d', ...'kkk', 'G', 'g', 'g', 'o', ...'A line typed by a person, one key at a time.', 'Escape',
  '/', ...'note 20', 'Enter', ...'dd', 'u', ...'wcw', ...'changed', 'Escape', ...'$', 'x', 'x', 'u',
  ':', ...'set number', 'Enter', ...'10G', ':', 'q', '!', 'Enter',
];
const thinking = new Set([12, 50, 60, 75]);
const weights = keys.map((_, i) => (thinking.has(i) ? 8 : 1 + ((i * 7) % 5) / 4));
const settleMs = 50;
const budgetMs = RECORD_SECONDS * 1000 - keys.length * (settleMs + 5) - 600;
const unit = Math.max(0, budgetMs) / weights.reduce((a, b) => a + b, 0);
const steps = [{ waitFor: 'notes.txt' }];
keys.forEach((key, i) => {
  steps.push({ pause: Math.round(weights[i] * unit) });
  steps.push(key.length > 1 ? { press: key } : { type: key });
});

console.log(`recording a ${RECORD_SECONDS}-second vim session (${keys.length} keys)...`);
await recordScript({ out: cast, command: 'vim', args: ['-u', 'NONE', '-i', 'NONE', '-n', '-c', 'syntax on', 'notes.txt'], env: { TERM: 'xterm-256color' }, cwd: dir, rows: 24, cols: 80, steps, settleMs });
const { events } = await readCast(cast);
const recordedMs = events.at(-1).time * 1000;

const times = [];
const cpu = [];
let result;
// The bin, in a process that also reports its CPU time as it exits (a loaded machine stretches wall time).
// A --require preload: the bin is a CommonJS loader that runs only as the main module.
const measured = join(dir, 'report-cpu.cjs');
writeFileSync(measured, "process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('cpu=' + (u.userCPUTime + u.systemCPUTime) / 1000 + ' rss=' + u.maxRSS + '\\n'); });\n");
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  // The idle limit is set above every pause so the GIF keeps the session's own timing.
  const r = spawnSync(process.execPath, ['--require', measured, BIN, 'export', cast, '--format', 'gif', '--idle-time-limit', '60', '--out', gif, '--json'], { encoding: 'utf8' });
  times.push(performance.now() - t0);
  if (r.status !== 0) throw new Error(`export failed: ${r.stderr}`);
  result = JSON.parse(r.stdout).result;
  cpu.push(Number(/cpu=([\d.]+)/.exec(r.stderr)[1]));
}
const bytes = statSync(gif).size;
rmSync(dir, { recursive: true, force: true });
const wall = median(times);
const cpuMs = median(cpu);
const ratio = cpuMs / recordedMs;
const pct = (x) => `${((x / recordedMs) * 100).toFixed(2)}%`;
console.log(`vim session: ${events.filter((e) => e.code === 'o').length} outputs, recorded ${(recordedMs / 1000).toFixed(1)} s; GIF ${result.frames} frames, ${result.width}x${result.height}, ${(bytes / 1024).toFixed(0)} KB, ${result.seconds.toFixed(1)} s`);
console.log(`export process, median of ${RUNS} (start included): CPU ${cpuMs.toFixed(0)} ms = ${pct(cpuMs)} of the recording (target <= 5%) ${ratio <= 0.05 ? 'OK' : 'SLOW'}; wall ${wall.toFixed(0)} ms = ${pct(wall)} at load average ${loadavg()[0].toFixed(2)} on ${cpus().length} cores`);
process.exitCode = ratio <= 0.05 ? 0 : 1;
row({ path: 'GIF export of a ~30 s vim session (CPU time of the process, start included)', tapedeck: cpuMs, baseline: recordedMs, unit: 'ms', target: 0.05, note: `the recorded duration; wall ${pct(wall)}` });
