// Benchmark: replaying a protocol tape against a trivial echo server, against a minimal
// hand-written client doing the same round trips (bench/lib.mjs roundTrips). Each side runs
// in its own process, interleaved, so time and peak RSS compare like for like.
// Targets (issue 30): the library and the CLI within 1.2x of the client, peak RSS within 1.1x.
// A round trip here is two process wake-ups, so its time depends mostly on where the scheduler
// puts the two processes (same core or not: 35 to 190 us a trip for the client alone), which
// changes from run to run: the rows are medians of more runs at 10k, and the detail line prints
// the quartiles of the per-run ratios (each tapedeck run against the client run just before it).
//   node bench/protocol-replay.mjs [pairs...]        (default 10000 50000; RUNS: 9 at 10k, 5 at 50k)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { echoRequests, median, quartiles, roundTrips, row } from './lib.mjs';

const root = resolve(import.meta.dirname, '..');
const server = ['node', join(root, 'examples/echo-server.mjs')];
const self = fileURLToPath(import.meta.url);

function writeTape(path, requests) {
  const lines = requests.map((r) => {
    const m = JSON.parse(r);
    return JSON.stringify({ request: r, response: `{"jsonrpc":"2.0","id":${m.id},"result":${JSON.stringify(m.params)}}\n` });
  });
  writeFileSync(path, `${lines.join('\n')}\n`);
}

// Child mode: one side of one run; prints {ms, rssMb}.
if (process.argv[2] === '--side') {
  const [, , , side, tape, pairs] = process.argv;
  const t0 = performance.now();
  if (side === 'client') await roundTrips(server, echoRequests(Number(pairs)));
  else {
    const { replayProtocolTape } = await import(join(root, 'dist/index.js'));
    const result = await replayProtocolTape(tape, { command: server });
    if (result.drifts.length > 0) throw new Error(`unexpected drift: ${JSON.stringify(result.drifts[0])}`);
  }
  process.stdout.write(JSON.stringify({ ms: performance.now() - t0, rssMb: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}

const sizes = process.argv.slice(2).map(Number);
const dir = mkdtempSync(join(tmpdir(), 'tapedeck-bench-'));
for (const pairs of sizes.length > 0 ? sizes : [10_000, 50_000]) {
  const tape = join(dir, `echo-${pairs}.ndjson`);
  writeTape(tape, echoRequests(pairs));
  const runs = Number(process.env.RUNS ?? (pairs <= 10_000 ? 9 : 5));
  const side = (name) => JSON.parse(execFileSync(process.execPath, [self, '--side', name, tape, String(pairs)], { encoding: 'utf8' }));
  const client = [];
  const library = [];
  const cli = [];
  for (let i = 0; i < runs; i++) {
    client.push(side('client'));
    library.push(side('library'));
    // The CLI as a user runs it: node start, argument parsing, reading, replaying, the summary.
    const t0 = performance.now();
    execFileSync(process.execPath, [join(root, 'dist/bundle/tapedeck.js'), 'replay', tape, '--', ...server], { stdio: 'ignore' });
    cli.push(performance.now() - t0);
  }
  const c = median(client.map((r) => r.ms));
  const l = median(library.map((r) => r.ms));
  const k = median(cli);
  const cRss = median(client.map((r) => r.rssMb));
  const lRss = median(library.map((r) => r.rssMb));
  const libraryRatios = library.map((r, i) => r.ms / client[i].ms);
  const cliRatios = cli.map((ms, i) => ms / client[i].ms);
  console.log(
    `protocol replay, ${pairs} pairs, ${runs} runs: client ${c.toFixed(0)} ms ${cRss.toFixed(0)} MB, library ${l.toFixed(0)} ms ${lRss.toFixed(0)} MB ` +
      `(ratio quartiles ${quartiles(libraryRatios)}), CLI ${k.toFixed(0)} ms (${quartiles(cliRatios)})`,
  );
  row({ path: `protocol replay, ${pairs} pairs (library)`, tapedeck: l, baseline: c, unit: 'ms', target: 1.2, note: 'minimal client process' });
  row({ path: `protocol replay, ${pairs} pairs (CLI)`, tapedeck: k, baseline: c, unit: 'ms', target: 1.2, note: 'minimal client process' });
  row({ path: `protocol replay, ${pairs} pairs (peak RSS)`, tapedeck: lRss, baseline: cRss, unit: 'MB', target: 1.1, note: 'minimal client process' });
}
rmSync(dir, { recursive: true, force: true });
