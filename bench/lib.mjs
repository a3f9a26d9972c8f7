// Shared bits of the benchmarks: a minimal round-trip client and timing helpers.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The baseline: a minimal hand-written Node client that starts the server,
 * sends each request line, waits for the response line before sending the
 * next, then closes the server's stdin and waits for it to exit: the same job
 * a replay does, minus reading and comparing a tape. Returns { totalMs, tripsMs }:
 * the whole job, and the round trips alone (first request to last response).
 */
export function roundTrips(command, requests) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command[0], command.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
    let pending = '';
    let i = 0;
    let tripsStart;
    let tripsMs;
    const sendNext = () => {
      if (i === requests.length) {
        tripsMs = performance.now() - tripsStart;
        child.stdin.end();
        child.once('close', () => resolve({ totalMs: performance.now() - t0, tripsMs }));
        return;
      }
      child.stdin.write(`${requests[i++]}\n`);
    };
    child.stdout.on('data', (chunk) => {
      pending += chunk.toString();
      let nl;
      while ((nl = pending.indexOf('\n')) !== -1) {
        pending = pending.slice(nl + 1);
        sendNext();
      }
    });
    child.on('error', reject);
    tripsStart = performance.now();
    sendNext();
  });
}

export function echoRequests(n) {
  return Array.from({ length: n }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'echo', params: { n: i, text: `message ${i}` } }));
}

/**
 * One row of `npm run bench`'s table, printed as a tagged JSON line that bench/run.mjs
 * collects. `ratio` is tapedeck against the baseline measured in the same run; `target`
 * the bound it must meet (`max`: ratio <= target; `min`: ratio >= target). A row without a
 * target is a measurement printed beside the others (a floor): it has nothing to pass.
 */
export function row({ path, tapedeck, baseline, unit, target, bound = 'max', note }) {
  const ratio = tapedeck / baseline;
  const pass = target === undefined || (bound === 'max' ? ratio <= target : ratio >= target);
  console.log(`BENCH ${JSON.stringify({ path, tapedeck, baseline, unit, ratio, target, bound, pass, note })}`);
  return pass;
}

/** Whether `command` is on PATH (socat is an optional external reference). */
export function onPath(command) {
  return (process.env.PATH ?? '').split(':').some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The middle half of `xs` as "a-b" (the spread reported beside a median). */
export function quartiles(xs, digits = 2) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return `${at(0.25).toFixed(digits)}-${at(0.75).toFixed(digits)}`;
}
