// Benchmark: a round trip through `tapedeck record` (the tap) against the same
// round trip through a bare Node relay. Target: at most 1.1x the relay (issue 30).
// Medians of interleaved runs. Two servers: the trivial echo server (the worst
// case: the server does no work, so the tap's extra process hop is all there
// is) and MCP server-everything answering `ping` (a real server). Measured
// beside them: talking to the server directly, the floors of the extra hop (the
// bare Node relay: any Node process in the path costs at least this; socat, when
// installed: a native relay, what a hop costs at best), and a minimal recording
// tap (what parsing each message and writing each pair cost on their own).
//   node bench/protocol-tap.mjs [requests] [runs]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { echoRequests, median, onPath, quartiles, roundTrips, row } from './lib.mjs';

const root = resolve(import.meta.dirname, '..');
const n = Number(process.argv[2] ?? 2000);
const runs = Number(process.argv[3] ?? 11);
const dir = mkdtempSync(join(tmpdir(), 'tapedeck-bench-'));
const servers = {
  'echo server': { command: ['node', join(root, 'examples/echo-server.mjs')], requests: echoRequests(n) },
  'MCP server-everything (ping)': {
    command: ['node', join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
    requests: Array.from({ length: n }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'ping' })),
  },
};
const tape = join(dir, 'tap.ndjson');
for (const [name, { command, requests }] of Object.entries(servers)) {
  const sides = {
    direct: command,
    'bare Node relay': ['node', join(root, 'bench/support/bare-relay.mjs'), ...command],
    ...(onPath('socat') ? { 'socat (native)': ['socat', '-', `EXEC:${command.join(' ')},pipes`] } : {}),
    // What any recorder pays on top of the relay: a parse per message and a write per pair (bench/support/minimal-tap.mjs).
    'minimal tap': ['node', join(root, 'bench/support/minimal-tap.mjs'), join(dir, 'minimal.ndjson'), ...command],
    'tapedeck tap': ['node', join(root, 'dist/bundle/tapedeck.js'), 'record', '--out', tape, '--', ...command],
  };
  const ms = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
  // Runs interleaved, the order rotated per run, so load hits every side alike.
  const labels = Object.keys(sides);
  for (let i = 0; i < runs; i++) {
    for (let k = 0; k < labels.length; k++) {
      const label = labels[(i + k) % labels.length];
      ms[label].push((await roundTrips(sides[label], requests)).tripsMs);
      rmSync(tape, { force: true });
      rmSync(join(dir, 'minimal.ndjson'), { force: true });
    }
  }
  const d = median(ms.direct);
  const ratio = (label) => median(ms[label]) / d;
  console.log(`protocol tap, ${name}, ${n} sequential round trips, median of ${runs} interleaved runs (middle half of the per-run ratios):`);
  for (const label of labels) {
    const spread = label === 'direct' ? '' : ` (${ratio(label).toFixed(2)}x; ${quartiles(ms[label].map((x, i) => x / ms.direct[i]))})`;
    console.log(`  ${label.padEnd(16)} ${((median(ms[label]) / n) * 1000).toFixed(1).padStart(7)} us/round trip${spread}`);
  }
  const t = median(ms['tapedeck tap']);
  const r = median(ms['bare Node relay']);
  console.log(`  the tap is ${(t / r).toFixed(2)}x the bare Node relay, the floor for any Node process in the path`);
  console.log(`  the minimal recording tap is ${(median(ms['minimal tap']) / r).toFixed(2)}x it: a parse per message and a write per pair, which no recorder skips`);
  const floors = labels.slice(1, -1).map((l) => `${l.replace(/ \(native\)/, '')} ${ratio(l).toFixed(2)}x`).join(', ');
  // The target is against the floor: no Node process in the path does better than the bare relay (issue 30).
  row({ path: `record tap, ${name}`, tapedeck: (t / n) * 1000, baseline: (r / n) * 1000, unit: 'us/trip', target: 1.1, note: `bare Node relay; direct ${(d / n * 1000).toFixed(1)} us: ${floors}, tap ${ratio('tapedeck tap').toFixed(2)}x` });
}
rmSync(dir, { recursive: true, force: true });
