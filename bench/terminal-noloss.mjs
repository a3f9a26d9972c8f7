// No output lost at exit: `seq 1 200000` through node-pty alone (the baseline,
// which drops the tail in some runs) and through tapedeck's recorder, RUNS
// times each. Prints complete runs per side and the time ratio.
import { row } from './lib.mjs';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordTerminal } from '../dist/recorder/terminal/record.js';
import { eventBytes } from '../dist/tape/asciicast/events.js';
import { readCast } from '../dist/index.js';

const require = createRequire(import.meta.url);
const pty = require('node-pty');
const RUNS = Number(process.env.RUNS ?? 50);
const expected = Buffer.from(Array.from({ length: 200000 }, (_, i) => `${i + 1}\r\n`).join(''));

function nodePtyAlone() {
  return new Promise((resolve) => {
    const chunks = [];
    const p = pty.spawn('seq', ['1', '200000'], { cols: 80, rows: 24, encoding: null });
    p.onData((d) => chunks.push(d));
    p.onExit(() => resolve(Buffer.concat(chunks)));
  });
}

async function tapedeck(dir, i) {
  const out = join(dir, `seq-${i}.cast`);
  const { done } = await recordTerminal({ out, command: 'seq', args: ['1', '200000'] });
  await done;
  const { events } = await readCast(out);
  return Buffer.concat(events.filter((e) => e.code === 'o').map(eventBytes));
}

const dir = mkdtempSync(join(tmpdir(), 'tapedeck-noloss-'));
const result = { base: { ok: 0, ms: 0, minBytes: Infinity }, ours: { ok: 0, ms: 0, minBytes: Infinity } };
try {
  for (let i = 0; i < RUNS; i++) {
    for (const [side, run] of [['base', nodePtyAlone], ['ours', () => tapedeck(dir, i)]]) {
      const t0 = performance.now();
      const bytes = await run();
      result[side].ms += performance.now() - t0;
      result[side].minBytes = Math.min(result[side].minBytes, bytes.length);
      if (bytes.equals(expected)) result[side].ok++;
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`seq 1 200000 (${expected.length} bytes), ${RUNS} runs each:`);
console.log(`  node-pty alone      ${result.base.ok}/${RUNS} complete, shortest ${result.base.minBytes} bytes, ${(result.base.ms / RUNS).toFixed(0)} ms/run`);
console.log(`  tapedeck record     ${result.ours.ok}/${RUNS} complete, shortest ${result.ours.minBytes} bytes, ${(result.ours.ms / RUNS).toFixed(0)} ms/run (cast written and read back)`);
console.log(`  time ratio          ${(result.ours.ms / result.base.ms).toFixed(2)}x`);
if (result.ours.ok !== RUNS) process.exitCode = 1;
row({ path: `record seq 1 200000 x${RUNS}, all complete: ${result.ours.ok === RUNS ? 'yes' : 'NO'}`, tapedeck: result.ours.ms / RUNS, baseline: result.base.ms / RUNS, unit: 'ms/run', target: result.ours.ok === RUNS ? 1.5 : 0, note: 'node-pty alone' });
