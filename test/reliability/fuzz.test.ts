import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { castTape, protocolTape, rng, configText, envelopeLines } from '../helpers/fuzz-gen.js';
import { childEnv, tapedeck, useTempDirs, ROOT, tapedeckInProcess } from '../helpers/cli.js';
import { TapedeckError, Normaliser, readProtocolTape, readCast, convertCast, serveTape, playCast } from '../../src/index.js';
import { driftLines } from '../../src/core/diagnostics/drift.js';
import { setWarnSink } from '../../src/core/diagnostics/warn.js';
import { comparePairs } from '../../src/replayer/protocol/compare.js';
import { planTerminalReplay } from '../../src/replayer/terminal/plan.js';
import { loadConfig } from '../../src/core/config/config.js';
import { isTrustedTape, projectTrust } from '../../src/replayer/tape-trust.js';

/**
 * Malformed protocol tapes and casts, generated from a seed, through the
 * readers, the comparison, serve, the replay planner (which plays the whole
 * cast into a headless screen), the player and export. Every outcome must be
 * a result or an exit-2 TapedeckError: nothing else thrown, no case over the
 * time bound, the process under 512 MB. A sample goes through the real CLI,
 * where exit codes, stack traces and unescaped bytes are checked.
 *
 * Configs, fix envelopes and review folders (candidates that are folders,
 * FIFOs, links out of the project) go through the same checks. Every refusal
 * names its file, and the line when the file has lines.
 *
 * TAPEDECK_FUZZ=1 is the 10,000-input soak (2,000 of each of the five kinds;
 * about a minute on the 2-core CI machine); TAPEDECK_FUZZ_CASES sets the
 * count per kind (default 100) and TAPEDECK_FUZZ_SEED picks the run.
 */
const CASES = Number(process.env.TAPEDECK_FUZZ_CASES) || (process.env.TAPEDECK_FUZZ ? 2000 : 100);
const SEED = Number(process.env.TAPEDECK_FUZZ_SEED) || 20261201;
// A hang or blow-up is minutes. The slowest real cases (seed 20261201, casts 1208 and 1551: a few hundred
// bytes, a 1000x1000 resize, then a REP of millions cut to one screenful, 1,000,000 cells) took 12-16 s
// on a quiet 2-core machine, reading that screen a cell at a time; now under a second (limits.test.ts).
const CASE_MS = 60_000;
const MAX_RSS = 512 * 1024 * 1024;
const ENV = childEnv({ FUZZ_SECRET: 's3cr3t/value' });
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const temp = useTempDirs();

/** A file with content has lines: an error about it names one. */
function hasLines(file: string): boolean {
  try {
    return statSync(file).isFile() && statSync(file).size > 0;
  } catch {
    return false;
  }
}

/** Runs one operation: it may succeed or fail with exit 2 naming the file (and line); anything else fails the case. */
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
    expect(err.location?.file, `${label}: names no file: ${err.describe()}`).toBeTruthy();
    if (hasLines(err.location!.file)) expect(err.location!.line, `${label}: names no line: ${err.describe()}`).toBeGreaterThan(0);
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

async function configCase(dir: string, i: number): Promise<string> {
  const r = rng(SEED * 11 + i);
  const project = join(dir, `k${i}`);
  mkdirSync(project);
  writeFileSync(join(project, 'tapedeck.config.json'), configText(r));
  let outcome = 'rejected';
  await bounded(`config case ${i}`, async () => {
    const config = loadConfig(undefined, project);
    outcome = 'read';
    // Whatever "goldens" it names, a tape outside the project is never the project's own.
    const trust = projectTrust({ configPath: config.path, goldens: config.goldens, cwd: project });
    expect(isTrustedTape(join(dir, 'elsewhere.cast'), trust), `config case ${i}`).toBe(false);
  });
  return outcome;
}

/** A CLI run in this process: exit 0, 1 or 2, never an internal error; a refusal names file and line. */
function expectClean(label: string, res: { code: number; stderr: string }, where?: RegExp): string {
  expect([0, 1, 2], `${label}: ${res.stderr}`).toContain(res.code);
  expect(res.stderr, label).not.toMatch(/internal error|\n\s+at .*\.js:\d+/);
  if (res.code === 2 && where) expect(res.stderr, label).toMatch(where);
  return res.code === 2 ? 'rejected' : 'read';
}

async function fixCase(dir: string, i: number): Promise<string> {
  const r = rng(SEED * 13 + i);
  const file = join(dir, `f${i}.txt`);
  writeFileSync(file, 'old\nkept\n');
  const started = performance.now();
  const res = await tapedeckInProcess(['fix', '--apply', '--from-stdin', '--accept-drift'], { input: envelopeLines(r, file).toString('latin1'), cwd: dir });
  expect(performance.now() - started, `fix case ${i}`).toBeLessThan(CASE_MS);
  // Bad input on stdin is named <stdin>:LINE.
  return expectClean(`fix case ${i}`, res, /<stdin>:\d+: /);
}

async function reviewCase(dir: string, i: number): Promise<string> {
  const r = rng(SEED * 17 + i);
  const project = join(dir, `r${i}`);
  const goldens = join(project, 'goldens');
  mkdirSync(join(goldens, 'sub'), { recursive: true });
  const outside = join(dir, `outside${i}.txt`);
  writeFileSync(outside, 'outside\n');
  for (let k = 0; k < 1 + Math.floor(r() * 4); k++) {
    const name = join(goldens, r() < 0.3 ? 'sub' : '', `g${k}.txt`);
    const kind = Math.floor(r() * 6);
    if (kind === 0) writeFileSync(`${name}.new`, protocolTape(r));
    if (kind === 1) mkdirSync(`${name}.new`);
    if (kind === 2) execFileSync('mkfifo', [`${name}.new`]);
    if (kind === 3) (symlinkSync(outside, name), writeFileSync(`${name}.new`, 'pwned\n'));
    if (kind === 4) (writeFileSync(name, 'old\n'), symlinkSync(outside, `${name}.new`));
    if (kind === 5) (writeFileSync(name, castTape(r)), writeFileSync(`${name}.new`, castTape(r)));
  }
  const started = performance.now();
  const listed = await tapedeckInProcess(['review', '--json'], { cwd: project });
  expectClean(`review case ${i}`, listed);
  const acted = await tapedeckInProcess(['review', r() < 0.5 ? 'goldens' : 'goldens/sub', r() < 0.5 ? '--accept' : '--reject', 'all'], { cwd: project });
  expect(performance.now() - started, `review case ${i}`).toBeLessThan(CASE_MS);
  // A link out of the project is never written through.
  expect(readFileSync(outside, 'utf8'), `review case ${i}`).toBe('outside\n');
  const outcome = expectClean(`review case ${i}`, acted, /tapedeck review: .*goldens\//);
  rmSync(project, { recursive: true, force: true }); // thousands of cases: the folder is not left for the end
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

  for (const [kind, run] of [['configs', configCase], ['fix envelopes', fixCase], ['review folders', reviewCase]] as const) {
    it(`${kind}: a result or a clean exit-2 error naming file and line`, async () => {
      const restore = setWarnSink(() => {});
      try {
        const dir = temp();
        const outcomes: Record<string, number> = {};
        for (let i = 0; i < CASES; i++) {
          const o = await run(dir, i);
          outcomes[o] = (outcomes[o] ?? 0) + 1;
        }
        expect(outcomes.read, JSON.stringify(outcomes)).toBeGreaterThan(CASES / 20);
        expect(outcomes.rejected, JSON.stringify(outcomes)).toBeGreaterThan(CASES / 20);
      } finally {
        setWarnSink(restore);
      }
    }, 1_200_000);
  }

  it('a sample through the real CLI: exit 0/1/2, no stack trace, nothing from the tape unescaped', async () => {
    const dir = temp();
    const sample = Math.max(3, Math.round(CASES / 100));
    const echo = join(ROOT, 'examples/echo-server.mjs');
    type Job = { what: string; args: string[]; input?: string; file?: string };
    const jobs: Job[] = [];
    // Named pipes where a tape, cast or config goes: refused at once (exit 2), never waited on.
    for (const name of ['fifo.cast', 'fifo.ndjson', 'fifo.json']) execFileSync('mkfifo', [join(dir, name)]);
    jobs.push({ what: 'replay fifo.cast', args: ['replay', join(dir, 'fifo.cast')], file: 'fifo.cast' });
    jobs.push({ what: 'snapshot fifo.cast', args: ['snapshot', join(dir, 'fifo.cast')], file: 'fifo.cast' });
    jobs.push({ what: 'replay fifo.ndjson', args: ['replay', join(dir, 'fifo.ndjson'), '--', 'node', join(ROOT, 'examples/echo-server.mjs')], file: 'fifo.ndjson' });
    jobs.push({ what: 'replay --config fifo.json', args: ['replay', '--config', join(dir, 'fifo.json'), join(dir, 'x.ndjson'), '--', 'true'], file: 'fifo.json' });
    for (let i = 0; i < sample; i++) {
      const p = join(dir, `s${i}.ndjson`);
      writeFileSync(p, protocolTape(rng(SEED + 100_000 + i)));
      const c = join(dir, `s${i}.cast`);
      writeFileSync(c, castTape(rng(SEED + 200_000 + i)));
      jobs.push({ what: `replay ${p}`, args: ['replay', p, '--timeout-ms', '3000', '--', 'node', echo], file: p });
      jobs.push({ what: `serve ${p}`, args: ['serve', p], input: readFileSync(p, 'latin1').slice(0, 300), file: p });
      jobs.push({ what: `snapshot ${c}`, args: ['snapshot', c], file: c });
      jobs.push({ what: `replay ${c}`, args: ['replay', c, '--step-timeout-ms', '300'], file: c });
      jobs.push({ what: `export ${c}`, args: ['export', c, '--format', 'v2', '--out', join(dir, `s${i}.v2.cast`)], file: c });
      const u = join(dir, `u${i}.cast`);
      writeFileSync(u, readFileSync(c));
      jobs.push({ what: `replay --update ${u}`, args: ['replay', u, '--update', '--step-timeout-ms', '300', '--', 'sh', '-c', 'printf x'], file: u });
    }
    // A few at a time: the machine has two cores.
    const results: { what: string; file?: string; code: number | null; stderr: string }[] = [];
    for (let k = 0; k < jobs.length; k += 4) {
      const batch = jobs.slice(k, k + 4).map((j) => tapedeck(j.args, { cwd: dir, env: ENV, input: j.input, timeoutMs: 90_000 }).then((res) => ({ what: j.what, file: j.file, ...res })));
      results.push(...(await Promise.all(batch)));
    }
    for (const res of results) {
      expect([0, 1, 2], `${res.what}: ${res.stderr}`).toContain(res.code);
      expect(res.stderr, res.what).not.toMatch(/internal error|\n\s+at .*\.js:\d+/);
      // The replay of a cast from outside the project never ran its recorded command.
      expect(res.stderr, res.what).not.toMatch(CONTROL);
      if (res.what.includes('fifo')) expect([res.code, res.stderr.includes(`${res.file}: not a regular file`)], res.what).toEqual([2, true]);
      // A tape refused as bad input is named with the line, when it has lines.
      else if (res.code === 2 && res.file && hasLines(res.file)) expect(res.stderr, res.what).toMatch(/:\d+: /);
    }
    expect(() => readFileSync('/tmp/tapedeck-fuzz-pwned')).toThrow();
  }, 900_000);
});
