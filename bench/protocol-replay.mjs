// Benchmark: replaying a 10,000-pair protocol tape against a trivial echo
// server, against a minimal hand-written client doing the same round trips.
// Target: tapedeck at most 1.2x the baseline. Prints medians of interleaved runs.
//   node bench/protocol-replay.mjs [pairs] [runs]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { echoRequests, median, roundTrips } from './lib.mjs';

const root = resolve(import.meta.dirname, '..');
const { replayProtocolTape } = await import(join(root, 'dist/index.js'));
const pairs = Number(process.argv[2] ?? 10_000);
const runs = Number(process.argv[3] ?? 5);
const server = ['node', join(root, 'examples/echo-server.mjs')];
const dir = mkdtempSync(join(tmpdir(), 'tapedeck-bench-'));
const tape = join(dir, 'echo.ndjson');
const requests = echoRequests(pairs);
writeFileSync(
  tape,
  requests.map((r) => {
    const m = JSON.parse(r);
    return JSON.stringify({ request: r, response: `{"jsonrpc":"2.0","id":${m.id},"result":${JSON.stringify(m.params)}}\n` });
  }).join('\n') + '\n',
);

const base = [];
const ours = [];
for (let i = 0; i < runs; i++) {
  base.push((await roundTrips(server, requests)).totalMs);
  const t0 = performance.now();
  const result = await replayProtocolTape(tape, { command: server });
  ours.push(performance.now() - t0);
  if (result.drifts.length > 0) throw new Error(`unexpected drift: ${JSON.stringify(result.drifts[0])}`);
}
rmSync(dir, { recursive: true, force: true });
const b = median(base);
const o = median(ours);
console.log(`protocol replay, ${pairs} pairs, median of ${runs}:`);
console.log(`  baseline client  ${b.toFixed(0)} ms (start the server, ${pairs} round trips, stop it)`);
console.log(`  tapedeck replay  ${o.toFixed(0)} ms (the same, plus reading the tape and comparing every response)`);
console.log(`  ratio ${(o / b).toFixed(2)}x (target <= 1.2x)`);
