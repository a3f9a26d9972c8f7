import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { CLI, EVERYTHING_SERVER, ROOT, run, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';
import { runs, soakLoop } from '../helpers/soak.js';
import { OLDER_DRIFT } from '../helpers/workload.js';

/**
 * Issue 30, items 2 and 3, with the official SDK client: a server's own requests
 * are answered when the live server asks (never blind, always with the live id),
 * their ids are never drift, and a cancelled call replays as recorded.
 */
const temp = useTempDirs();
const FIX = join(ROOT, 'test/fixtures/protocol');
const RPC = ['node', join(FIX, 'rpc-server.mjs')];
const pairsOf = (tape: string) => readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { request: string; response: string });

async function recordMini(tape: string, env: NodeJS.ProcessEnv) {
  const rec = await run(['node', join(FIX, 'mini-client.mjs'), '--', 'node', CLI, 'record', '--out', tape, '--', ...RPC], { env });
  expect(rec.code, rec.stderr).toBe(0);
  expect(rec.stdout).toContain('file:///workspace');
  return rec;
}

describe('server-to-client requests', () => {
  // One recording per server behaviour, shared: ID_BASE 0 with no answer to the cancel, and the -32800 error style.
  let plain: Promise<string> | undefined;
  let errorStyle: Promise<string> | undefined;
  // Kept across the tests of this file (a test's temp dir goes when the test ends).
  const shared = mkdtempSync(join(tmpdir(), 'tapedeck-server-requests-'));
  afterAll(() => rmSync(shared, { recursive: true, force: true }));
  const recorded = (name: string, env: NodeJS.ProcessEnv) => async () => {
    const tape = join(shared, `${name}.ndjson`);
    await recordMini(tape, env);
    return tape;
  };
  const plainTape = () => (plain ??= recorded('plain', { ID_BASE: '0' })());
  const errorTape = () => (errorStyle ??= recorded('cancel-error', { CANCEL_STYLE: 'error' })());

  test('roots/list asked on a timer 250 ms after initialized: the answer waits for the live request and goes with its id; other ids are no drift', async () => {
    const tape = await plainTape();
    const pairs = pairsOf(tape);
    const answer = pairs.findIndex((p) => p.request.includes('"roots":[{'));
    expect(JSON.parse(pairs[answer].request).id).toBe('srv-0');
    // The recorded answer matters: a changed one is drift in the tool result that reports it.
    const changed = join(temp(), 'changed.ndjson');
    writeFileSync(changed, readFileSync(tape, 'utf8').replace('file:///workspace\\",\\"name', 'file:///elsewhere\\",\\"name'));
    // The live server counts from 7: its request is srv-7, and only an answer with that id counts.
    const [same, drift] = await Promise.all([
      tapedeckInProcess(['replay', tape, '--', ...RPC], { env: { ID_BASE: '7' } }),
      tapedeckInProcess(['replay', changed, '--', ...RPC], { env: { ID_BASE: '7' } }),
    ]);
    expect(same.stderr).toContain('0 drift(s)');
    expect(same.code).toBe(0);
    expect(drift.code).toBe(1);
    expect(drift.stderr).toContain('file:///elsewhere');
    // The race (the timer's request before or after the client's next call) over and over, under TAPEDECK_SOAK.
    await soakLoop(runs(0, 19), async () => {
      const again = await tapedeckInProcess(['replay', tape, '--', ...RPC], { env: { ID_BASE: '7' } });
      expect(again.stderr).toContain('0 drift(s)');
    });
  });

  test('a cancelled call replays as recorded: no answer, or an error answer, passes when the live server does the same', async () => {
    const [none, error] = await Promise.all([plainTape(), errorTape()]);
    for (const tape of [none, error]) expect(pairsOf(tape).some((p) => p.request.includes('notifications/cancelled'))).toBe(true);
    // A server that answers the cancelled call with its result where the recording had the error: drift, with the path.
    const [sameNone, sameError, other] = await Promise.all([
      tapedeckInProcess(['replay', none, '--', ...RPC], { env: { ID_BASE: '0' } }),
      tapedeckInProcess(['replay', error, '--', ...RPC], { env: { CANCEL_STYLE: 'error' } }),
      tapedeckInProcess(['replay', error, '--', ...RPC], { env: { CANCEL_STYLE: 'result' } }),
    ]);
    for (const same of [sameNone, sameError]) {
      expect(same.stderr).toContain('0 drift(s)');
      expect(same.code).toBe(0);
    }
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('$.error: expected {"code":-32800,"message":"Request cancelled"}, got nothing (missing)');
  });

  test('a cancelled call whose recorded output was a server request on a timer: the cancel goes at its recorded place when that request comes a request earlier (as under load)', async () => {
    // Recorded: roots/list asked while `slow` ran (cancelled at 100 ms), as a timer firing then would: it is in slow's
    // response. (Asked on a 20 ms timer, a loaded machine sometimes sent slow later and the tape had it elsewhere.)
    const tape = join(temp(), 'early.ndjson');
    await recordMini(tape, { ROOTS_AFTER_MS: 'slow' });
    const pairs = pairsOf(tape);
    const slow = pairs.findIndex((p) => p.request.includes('"name":"slow"'));
    expect(pairs[slow].response).toContain('"method":"roots/list"');
    expect(pairs.some((p) => p.request.includes('notifications/cancelled'))).toBe(true);
    // Live, the same request comes with the initialize answer: the cancel must not wait for a line that already came
    // (it did, until the timeout, and the call's result then came: drift). The 3 s call finishing first would show.
    const [early, same] = await Promise.all([
      tapedeckInProcess(['replay', tape, '--timeout-ms', '5000', '--', ...RPC], { env: { ROOTS_AFTER_MS: 'initialize' } }),
      tapedeckInProcess(['replay', tape, '--timeout-ms', '5000', '--', ...RPC], { env: { ROOTS_AFTER_MS: '20' } }),
    ]);
    for (const r of [early, same]) {
      expect(r.stderr).toContain('0 drift(s)');
      expect(r.code).toBe(0);
    }
  });

  test(`server-everything over stdio: roots, sampling, elicitation, progress and a cancel replay 0 (${runs(2, 20)} runs); an older server is 1 with its JSON path`, { timeout: 240_000 }, async () => {
    const tape = join(temp(), 'workload.ndjson');
    const rec = await run(['node', join(FIX, 'workload-client.mjs'), '--', 'node', CLI, 'record', '--out', tape, '--', ...EVERYTHING_SERVER]);
    expect(rec.code, rec.stderr).toBe(0);
    expect(rec.stdout).toContain('"kind":"roots-asked","value":1');
    const text = readFileSync(tape, 'utf8');
    for (const m of ['roots/list', 'sampling/createMessage', 'elicitation/create', 'notifications/progress', 'notifications/cancelled']) expect(text).toContain(m);
    // The older release (pinned under an npm alias) runs beside the first replay.
    const older = tapedeckInProcess(['replay', tape, '--timeout-ms', '20000', '--', 'node', join(ROOT, 'node_modules/server-everything-2026.1.14/dist/index.js'), 'stdio']);
    await soakLoop(runs(2, 20), async () => {
      const res = await tapedeckInProcess(['replay', tape, '--timeout-ms', '20000', '--', ...EVERYTHING_SERVER]);
      expect(res.stderr).toContain('0 drift(s)');
      expect(res.code).toBe(0);
    });
    const old = await older;
    expect(old.code).toBe(1);
    expect(old.stderr).toContain(OLDER_DRIFT);
  });
});
