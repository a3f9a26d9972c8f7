// Spawn-to-first-screen: how long until `printf x` is visible, through
// tapedeck's spawnTerminal (pinned env, PTY, headless screen, wait) versus
// node-pty alone (first data event carrying "x"). Target: ratio <= 1.5.
import { row } from './lib.mjs';
import { createRequire } from 'node:module';
import { spawnTerminal } from '../dist/index.js';

const require = createRequire(import.meta.url);
const pty = require('node-pty');
const RUNS = Number(process.env.RUNS ?? 60);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function nodePtyAlone() {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const p = pty.spawn('printf', ['x'], { cols: 80, rows: 24, env: process.env });
    let seen = false;
    p.onData((d) => {
      if (!seen && d.includes('x')) {
        seen = true;
        resolve(performance.now() - t0);
      }
    });
  });
}

async function tapedeck() {
  const t0 = performance.now();
  const t = spawnTerminal('printf', ['x']);
  await t.waitForText('x');
  const ms = performance.now() - t0;
  await t.dispose();
  return ms;
}

// Warm up both paths (module loading, JIT), then alternate so drift hits both.
for (let i = 0; i < 5; i++) {
  await nodePtyAlone();
  await tapedeck();
}
const base = [];
const ours = [];
for (let i = 0; i < RUNS; i++) {
  base.push(await nodePtyAlone());
  ours.push(await tapedeck());
  await new Promise((r) => setTimeout(r, 5));
}
const b = median(base);
const o = median(ours);
console.log(`spawn-to-first-screen (printf x), median of ${RUNS}:`);
console.log(`  node-pty alone      ${b.toFixed(2)} ms`);
console.log(`  tapedeck terminal   ${o.toFixed(2)} ms`);
console.log(`  ratio               ${(o / b).toFixed(2)}x (target <= 1.5x)`);
row({ path: 'spawn to first screen', tapedeck: o, baseline: b, unit: 'ms', target: 1.5, note: 'node-pty alone' });
