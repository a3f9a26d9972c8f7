// Benchmark: a round trip through `tapedeck record` (the tap) against talking
// to the server directly. Target: at most 1.2x. Medians of interleaved runs.
// Two servers: the trivial echo server (the worst case: the server does no work,
// so the tap's extra process hop is all there is) and MCP server-everything
// answering `ping` (a real server).
//   node bench/protocol-tap.mjs [requests] [runs]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { echoRequests, median, roundTrips, row } from './lib.mjs';

const root = resolve(import.meta.dirname, '..');
const n = Number(process.argv[2] ?? 5000);
const runs = Number(process.argv[3] ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'tapedeck-bench-'));
const servers = {
  'echo server': { command: ['node', join(root, 'examples/echo-server.mjs')], requests: echoRequests(n) },
  'MCP server-everything (ping)': {
    command: ['node', join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
    requests: Array.from({ length: n }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'ping' })),
  },
};
for (const [name, { command, requests }] of Object.entries(servers)) {
  const direct = [];
  const relayed = [];
  const tapped = [];
  for (let i = 0; i < runs; i++) {
    direct.push((await roundTrips(command, requests)).tripsMs);
    relayed.push((await roundTrips(['node', join(root, 'bench/support/bare-relay.mjs'), ...command], requests)).tripsMs);
    const tape = join(dir, `tap-${i}.ndjson`);
    tapped.push((await roundTrips(['node', join(root, 'dist/cli/main.js'), 'record', '--out', tape, '--', ...command], requests)).tripsMs);
    rmSync(tape, { force: true });
  }
  const d = median(direct);
  const r = median(relayed);
  const t = median(tapped);
  console.log(`protocol tap, ${name}, ${n} sequential round trips, median of ${runs}:`);
  console.log(`  direct           ${((d / n) * 1000).toFixed(1)} us/round trip`);
  console.log(`  bare Node relay  ${((r / n) * 1000).toFixed(1)} us/round trip (${(r / d).toFixed(2)}x: the floor for any process in the path)`);
  console.log(`  tapedeck tap     ${((t / n) * 1000).toFixed(1)} us/round trip`);
  console.log(`  ratio ${(t / d).toFixed(2)}x against direct (target <= 1.2x), ${(t / r).toFixed(2)}x against the bare relay`);
  row({ path: `record tap, ${name}`, tapedeck: (t / n) * 1000, baseline: (d / n) * 1000, unit: 'us/trip', target: 1.2, note: `direct; bare relay ${(r / d).toFixed(2)}x` });
}
rmSync(dir, { recursive: true, force: true });
