import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI, EVERYTHING_SERVER, ROOT, run, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';
import { runs } from '../helpers/soak.js';

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
  test('roots/list asked on a timer 250 ms after initialized: the answer waits for the live request and goes with its id; other ids are no drift', async () => {
    const tape = join(temp(), 'roots.ndjson');
    await recordMini(tape, { ID_BASE: '0' });
    const pairs = pairsOf(tape);
    const answer = pairs.findIndex((p) => p.request.includes('"roots":[{'));
    expect(JSON.parse(pairs[answer].request).id).toBe('srv-0');
    // The live server counts from 7: its request is srv-7, and only an answer with that id counts.
    for (let i = 0; i < 3; i++) {
      const res = await tapedeckInProcess(['replay', tape, '--', ...RPC], { env: { ID_BASE: '7' } });
      expect(res.stderr).toContain('0 drift(s)');
      expect(res.code).toBe(0);
    }
    // The recorded answer matters: a changed one is drift in the tool result that reports it.
    const changed = join(temp(), 'changed.ndjson');
    writeFileSync(changed, readFileSync(tape, 'utf8').replace('file:///workspace\\",\\"name', 'file:///elsewhere\\",\\"name'));
    const drift = await tapedeckInProcess(['replay', changed, '--', ...RPC], { env: { ID_BASE: '7' } });
    expect(drift.code).toBe(1);
    expect(drift.stderr).toContain('file:///elsewhere');
  });

  test('a cancelled call replays as recorded: no answer, or an error answer, passes when the live server does the same', async () => {
    for (const style of ['none', 'error']) {
      const tape = join(temp(), `cancel-${style}.ndjson`);
      await recordMini(tape, { CANCEL_STYLE: style });
      const pairs = pairsOf(tape);
      expect(pairs.some((p) => p.request.includes('notifications/cancelled'))).toBe(true);
      const same = await tapedeckInProcess(['replay', tape, '--', ...RPC], { env: { CANCEL_STYLE: style } });
      expect(same.stderr).toContain('0 drift(s)');
      expect(same.code).toBe(0);
    }
    // A server that answers the cancelled call with its result where the recording had the error: drift, with the path.
    const tape = join(temp(), 'cancel-error.ndjson');
    await recordMini(tape, { CANCEL_STYLE: 'error' });
    const other = await tapedeckInProcess(['replay', tape, '--', ...RPC], { env: { CANCEL_STYLE: 'result' } });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('$.error: expected {"code":-32800,"message":"Request cancelled"}, got nothing (missing)');
  });

  test(`server-everything over stdio: roots, sampling, elicitation, progress and a cancel replay 0 (${runs(3, 20)} runs)`, async () => {
    const tape = join(temp(), 'workload.ndjson');
    const rec = await run(['node', join(FIX, 'workload-client.mjs'), '--', 'node', CLI, 'record', '--out', tape, '--', ...EVERYTHING_SERVER]);
    expect(rec.code, rec.stderr).toBe(0);
    expect(rec.stdout).toContain('"kind":"roots-asked","value":1');
    const text = readFileSync(tape, 'utf8');
    for (const m of ['roots/list', 'sampling/createMessage', 'elicitation/create', 'notifications/progress', 'notifications/cancelled']) expect(text).toContain(m);
    for (let i = 0; i < runs(3, 20); i++) {
      const res = await tapedeckInProcess(['replay', tape, '--timeout-ms', '20000', '--', ...EVERYTHING_SERVER]);
      expect(res.stderr).toContain('0 drift(s)');
      expect(res.code).toBe(0);
    }
  });
});
