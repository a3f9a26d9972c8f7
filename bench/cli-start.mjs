// Benchmark: how long a protocol-only command takes to start, against a bare `node -e 0`.
// Each command is run with --help, which loads the command's module graph (everything it
// imports eagerly) and exits; lazy loading keeps node-pty, xterm, playwright and pngjs out.
// Target: within 1.3x of bare node. Interleaved runs, medians.
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { median, row } from './lib.mjs';

const root = resolve(import.meta.dirname, '..');
const runs = Number(process.env.RUNS ?? 15);
const time = (args) => {
  const t0 = performance.now();
  execFileSync(process.execPath, args, { stdio: 'ignore' });
  return performance.now() - t0;
};
for (const command of ['replay', 'record', 'serve', 'explain', 'fix']) {
  const bare = [];
  const ours = [];
  for (let i = 0; i < runs; i++) {
    bare.push(time(['-e', '0']));
    ours.push(time([join(root, 'dist/cli/main.js'), command, '--help']));
  }
  const b = median(bare);
  const o = median(ours);
  console.log(`tapedeck ${command} start: ${o.toFixed(0)} ms, node -e 0: ${b.toFixed(0)} ms`);
  row({ path: `CLI start: ${command}`, tapedeck: o, baseline: b, unit: 'ms', target: 1.3, note: 'node -e 0' });
}
