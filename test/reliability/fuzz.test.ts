import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { castTape, protocolTape, rng } from '../helpers/fuzz-gen.js';
import { tapedeck, useTempDirs, ROOT } from '../helpers/cli.js';
import { TapedeckError, Normaliser, readProtocolTape, readCast, convertCast, serveTape, playCast } from '../../src/index.js';
import { driftLines } from '../../src/core/diagnostics/drift.js';
import { setWarnSink } from '../../src/core/diagnostics/warn.js';
import { comparePairs } from '../../src/replayer/protocol/compare.js';
import { planTerminalReplay } from '../../src/replayer/terminal/plan.js';

/**
 * Malformed protocol tapes and casts, generated from a seed, through the
 * readers, the comparison, serve, the replay planner (which plays the whole
 * cast into a headless screen), the player and export. Every outcome must be
 * a result or an exit-2 TapedeckError: nothing else thrown, no case over the
 * time bound, the process under 512 MB. A sample goes through the real CLI,
 * where exit codes, stack traces and unescaped bytes are checked.
 *
 * TAPEDECK_FUZZ_CASES (default 100; a soak sets thousands) and TAPEDECK_FUZZ_SEED pick the run.
 */
const CASES = Number(process.env.TAPEDECK_FUZZ_CASES) || 100;
const SEED = Number(process.env.TAPEDECK_FUZZ_SEED) || 20261201;
const CASE_MS = 15_000; // generous: the machine is shared; a hang or blow-up is minutes
const MAX_RSS = 512 * 1024 * 1024;
const ENV = { ...process.env, FUZZ_SECRET: 's3cr3t/value' };
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const temp = useTempDirs();

/** Runs one operation: it may succeed or fail with exit 2; anything else fails the case. */
async function bounded(label: string, work: () => Promise<unknown>): Promise<'ok' | 'rejected'> {
  const started = performance.now();
  try {
    await work();
    return 'ok';
  } catch (err) {
    if (!(err instanceof TapedeckError) || err.exitCode !== 2) {
      throw new Error(`${label}: not a clean exit-2 error: ${(err as Error)?.stack ?? String(err)}`);
    }
    expect(err.describe(), label).not.toMatch(/\n\s+at /);
    return 'rejected';
  } finally {
    const ms = performance.now() - started;
    if (ms > CASE_MS) throw new Error(`${label}: took ${Math.round(ms)} ms`);
    const rss = process.memoryUsage().rss;
    if (rss > MAX_RSS) throw new Error(`${label}: resident memory ${Math.round(rss / 2 ** 20)} MB`);
  }
}

async function protocolCase(dir: string, i: number): Promise<string> {
  const r = rng(SEED + i);
  const path = join(dir, `p${i}.ndjson`);
  writeFileSync(path, protocolTape(r));
  let outcome = 'rejected';
  await bounded(`protocol case ${i}`, async () => {
    const tape = await readProtocolTape(path);
    outcome = 'read';
    // Compare each recorded response with a bent copy, and format the differences for a terminal.
    const normaliser = new Normaliser({ ignore: ['$..id', '$.result.x'] });
    const compared = tape.pairs.map((p, index) => ({
      index, expected: p.response, actual: r() < 0.5 ? p.response : p.response.slice(0, Math.floor(p.response.length * r())) + 'X\n',
      rule: { kind: r() < 0.5 ? ('jsonrpc' as const) : ('done' as const) }, awaitingId: String(index + 1),
    }));
    for (const d of comparePairs(compared, normaliser, r() < 0.2 ? 'trailing\n'.repeat(50) : '')) {
      const p = tape.pairs[d.index];
      const lines = driftLines({ ...d, tape: path, line: p.line, byteStart: 0, byteEnd: 0, pair: d.index + 1, request: p.request, recordedLine: p.raw, expected: p.response });
      for (const l of lines) expect(l, `protocol case ${i}`).not.toMatch(CONTROL);
    }
    // Serve the tape to a client sending its requests (some changed).
    const requests = tape.pairs.map((p) => (r() < 0.7 ? p.request : `${p.request.slice(0, 10)}\x1b]0;x\x07`)).join('\n');
    const log: string[] = [];
    await serveTape(tape, { input: Readable.from([Buffer.from(`${requests}\n`)]), output: new Writable({ write: (_c, _e, cb) => cb() }), log: (m) => log.push(m), env: ENV });
    for (const m of log) expect(m.trimEnd(), `serve log, case ${i}`).not.toMatch(CONTROL);
    // A tape that declares the secret (a placeholder) never has its value logged.
    if (tape.pairs.some((p) => (p.request + p.response).includes('{{tapedeck.env.FUZZ_SECRET}}'))) {
      for (const m of log) expect(m, `serve log, case ${i}: ${JSON.stringify(m)}`).not.toMatch(/s3cr3t\\?\/value/);
    }
  });
  return outcome;
}

async function castCase(dir: string, i: number): Promise<string> {
  const r = rng(SEED * 7 + i);
  const path = join(dir, `c${i}.cast`);
  writeFileSync(path, castTape(r));
  let outcome = 'rejected';
  await bounded(`cast case ${i}`, async () => {
    const plan = await planTerminalReplay(path, { command: ['true'] });
    outcome = 'read';
    expect(plan.steps.length).toBeGreaterThan(0);
    const markers = plan.steps.filter((s) => s.kind === 'marker');
    const position = markers.length && r() < 0.5 ? { marker: markers[0].marker! } : r() < 0.5 ? { seconds: r() * 3 } : undefined;
    const played = await playCast(path, position, { scrollback: 0 });
    played.screen.dispose();
    // Export never writes what the reader rejects.
    const out = join(dir, `c${i}.out.cast`);
    await convertCast(path, out, r() < 0.5 ? 'v2' : 'v3');
    await readCast(out);
  });
  return outcome;
}

describe(`fuzz: ${CASES} malformed tapes and casts (seed ${SEED})`, () => {
  it('protocol tapes: a result or a clean exit-2 error, bounded in time and memory', async () => {
    const restore = setWarnSink(() => {});
    try {
      const dir = temp();
      const outcomes: Record<string, number> = {};
      for (let i = 0; i < CASES; i++) {
        const o = await protocolCase(dir, i);
        outcomes[o] = (outcomes[o] ?? 0) + 1;
      }
      // Both paths are exercised: readable tapes and refused ones.
      expect(outcomes.read).toBeGreaterThan(CASES / 10);
      expect(outcomes.rejected).toBeGreaterThan(CASES / 10);
    } finally {
      setWarnSink(restore);
    }
  }, 600_000);

  it('casts: planned, played to a position and exported, or a clean exit-2 error', async () => {
    const dir = temp();
    const outcomes: Record<string, number> = {};
    for (let i = 0; i < CASES; i++) {
      const o = await castCase(dir, i);
      outcomes[o] = (outcomes[o] ?? 0) + 1;
    }
    expect(outcomes.read).toBeGreaterThan(CASES / 10);
    expect(outcomes.rejected).toBeGreaterThan(CASES / 10);
  }, 600_000);

  it('a sample through the real CLI: exit 0/1/2, no stack trace, nothing from the tape unescaped', async () => {
    const dir = temp();
    const sample = Math.max(3, Math.round(CASES / 100));
    const echo = join(ROOT, 'examples/echo-server.mjs');
    type Job = { what: string; args: string[]; input?: string };
    const jobs: Job[] = [];
    for (let i = 0; i < sample; i++) {
      const p = join(dir, `s${i}.ndjson`);
      writeFileSync(p, protocolTape(rng(SEED + 100_000 + i)));
      const c = join(dir, `s${i}.cast`);
      writeFileSync(c, castTape(rng(SEED + 200_000 + i)));
      jobs.push({ what: `replay ${p}`, args: ['replay', p, '--timeout-ms', '3000', '--', 'node', echo] });
      jobs.push({ what: `serve ${p}`, args: ['serve', p], input: readFileSync(p, 'latin1').slice(0, 300) });
      jobs.push({ what: `snapshot ${c}`, args: ['snapshot', c] });
      jobs.push({ what: `replay ${c}`, args: ['replay', c, '--step-timeout-ms', '300'] });
      jobs.push({ what: `export ${c}`, args: ['export', c, '--format', 'v2', '--out', join(dir, `s${i}.v2.cast`)] });
    }
    // A few at a time: the machine has two cores.
    const results: { what: string; code: number | null; stderr: string }[] = [];
    for (let k = 0; k < jobs.length; k += 4) {
      const batch = jobs.slice(k, k + 4).map((j) => tapedeck(j.args, { cwd: dir, env: ENV, input: j.input, timeoutMs: 90_000 }).then((res) => ({ what: j.what, ...res })));
      results.push(...(await Promise.all(batch)));
    }
    for (const res of results) {
      expect([0, 1, 2], `${res.what}: ${res.stderr}`).toContain(res.code);
      expect(res.stderr, res.what).not.toMatch(/internal error|\n\s+at .*\.js:\d+/);
      // The replay of a cast from outside the project never ran its recorded command.
      expect(res.stderr, res.what).not.toMatch(CONTROL);
    }
    expect(() => readFileSync('/tmp/tapedeck-fuzz-pwned')).toThrow();
  }, 900_000);
});
