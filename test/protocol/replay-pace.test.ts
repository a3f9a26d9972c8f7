import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI, ROOT, run, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';
import { runs, soakLoop } from '../helpers/soak.js';

/**
 * Issue 30: `replay --pace recorded|none`, the client side of pacing. A client
 * sends some messages apart that wait for no answer (here the MCP SDK client:
 * `notifications/initialized`, then a call it cancels 1000 ms in, then the
 * cancel). Replay has nothing to wait for between them; written at once, a
 * server reads them in one chunk and can act otherwise than it did. The server
 * is the usual asyncio shape (test/fixtures/protocol/asyncio-server.py): start-up
 * work once initialize is answered, a task per request, the cancel cancelling the task, which
 * answers "Request cancelled" as the Python MCP SDK does. Read together with its
 * request, the cancel hits a task that never started: no answer at all.
 */
const temp = useTempDirs();
const SERVER = ['python3', join(ROOT, 'test/fixtures/protocol/asyncio-server.py')];
const CLIENT = ['node', join(ROOT, 'test/fixtures/protocol/cancel-client.mjs')];

describe('replay --pace', () => {
  test('recorded (the default): a request and its cancel reach the server apart, as the client sent them; none: together, and the server never answers the cancelled call', { timeout: 60_000 }, async () => {
    const tape = join(temp(), 'cancel.ndjson');
    const recorded = await run([...CLIENT, '--', 'node', CLI, 'record', '--out', tape, '--', ...SERVER]);
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(recorded.stdout).toContain('after the cancel');
    const pairs = readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { request: string; response: string });
    expect(pairs.map((p) => JSON.parse(p.request).method)).toEqual(['initialize', 'notifications/initialized', 'tools/call', 'notifications/cancelled', 'tools/call']);
    // The recorded server answered the cancelled call with the error, after the cancel.
    expect(pairs[2].response).toBe('');
    expect(pairs[4].response).toContain('{"jsonrpc": "2.0", "id": 1, "error": {"code": 0, "message": "Request cancelled"}}');

    await soakLoop(runs(2, 20), async () => {
      const [paced, recordedPace, atOnce] = await Promise.all([
        tapedeckInProcess(['replay', tape, '--', ...SERVER]),
        tapedeckInProcess(['replay', tape, '--pace', 'recorded', '--', ...SERVER]),
        tapedeckInProcess(['replay', tape, '--pace', 'none', '--', ...SERVER]),
      ]);
      expect(paced.stderr).toContain('5 pair(s), 0 drift(s)');
      expect(paced.code).toBe(0);
      expect(recordedPace.code, recordedPace.stderr).toBe(0);
      // At once (what replay did before --pace): the request and the cancel arrive in one read.
      expect(atOnce.code, atOnce.stderr).toBe(1);
      expect(atOnce.stderr).toContain('server message missing (response to id 1) [TD1004]');
    });

    const bad = await tapedeckInProcess(['replay', tape, '--pace', 'fast', '--', ...SERVER]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('replay: --pace must be recorded or none, got "fast"');
  });
});
