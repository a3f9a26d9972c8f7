// A VHS tape whose commands total 20 s of Sleep against an idle shell: wall time of
// `tapedeck vhs` (the bin, as a user runs it) as a ratio to the Sleep total. Without
// --realtime the run moves on once the shell waits for input (target <= 0.15x); with
// --realtime it honours every Sleep (target <= 1.05x: only the start-up on top). The same
// tape with Output .gif (1200x600, 50 frames a second: 1,000 frames of 20 s, drawn by the raster
// renderer) is held to the fast target too: the picture adds no wall time it does not need.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { row } from './lib.mjs';

const CLI = join(import.meta.dirname, '../dist/bundle/tapedeck.js');
const SLEEP_MS = 20_000;
const dir = mkdtempSync(join(tmpdir(), 'tapedeck-bench-vhs-'));
// 10 x (Sleep 2s, one short command): 20 s of Sleep, a few hundred ms of typing on top.
writeFileSync(join(dir, 'idle.tape'), `Output idle.txt\nSet TypingSpeed 1ms\n${'Sleep 2s\nType "true"\nEnter\n'.repeat(10)}`);

writeFileSync(join(dir, 'gif.tape'), `Output idle.gif\nSet TypingSpeed 1ms\n${'Sleep 2s\nType "true"\nEnter\n'.repeat(10)}`);

function wall(args, tape = 'idle.tape') {
  for (const f of ['idle.txt', 'idle.gif']) rmSync(join(dir, f), { force: true });
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [CLI, 'vhs', tape, ...args], { cwd: dir, env: { ...process.env, CI: '' }, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`tapedeck vhs exited ${r.status}: ${r.stderr}`);
  return ms;
}

try {
  const fast = Math.min(wall([]), wall([]), wall([]));
  console.log(`idle shell, 20 s of Sleep: ${fast.toFixed(0)} ms`);
  row({ path: 'vhs: 20 s of Sleep, idle shell (wall / Sleep total)', tapedeck: fast, baseline: SLEEP_MS, unit: 'ms', target: 0.15 });
  const gif = Math.min(wall([], 'gif.tape'), wall([], 'gif.tape'));
  console.log(`idle shell, 20 s of Sleep, Output .gif: ${gif.toFixed(0)} ms`);
  row({ path: 'vhs: 20 s of Sleep, Output .gif (wall / Sleep total)', tapedeck: gif, baseline: SLEEP_MS, unit: 'ms', target: 0.15 });
  const real = wall(['--realtime']);
  console.log(`--realtime: ${real.toFixed(0)} ms`);
  row({ path: 'vhs --realtime: 20 s of Sleep (wall / Sleep total)', tapedeck: real, baseline: SLEEP_MS, unit: 'ms', target: 1.05 });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
