import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI, ROOT, run, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

/**
 * Issue 30: Content-Length framing for DAP, with a real debug adapter from npm
 * (firefox-debugadapter, the VS Code Firefox debugger's adapter, pinned) driven
 * by the VS Code debug adapter test client (@vscode/debugadapter-testsupport's
 * DebugClient). No Firefox: the adapter answers initialize with its
 * capabilities, launch with an error naming the missing browser, threads and
 * disconnect with errors. DAP is not JSON-RPC: responses pair by `request_seq`,
 * events are like notifications, and the adapter's `seq` counts every message it sends.
 */
const temp = useTempDirs();
const FIX = join(ROOT, 'test/fixtures/protocol');
const ADAPTER = ['node', join(ROOT, 'node_modules/firefox-debugadapter/adapter.bundle.js')];
// A changed build of the adapter: the real one behind a relay (test/fixtures/protocol/dap-wrap.mjs).
const changed = (mode: string) => ['node', join(FIX, 'dap-wrap.mjs'), mode, '--', ...ADAPTER];
const LAUNCH = JSON.stringify({ file: join(FIX, 'lsp/a.json'), firefoxExecutable: '/nonexistent/firefox' });
const client = (launch: string, server: string[]) => ['node', join(FIX, 'dap-client.mjs'), launch, '--', ...server];
const teed = (log: string, server: string[]) => ['sh', '-c', `tee ${log} | exec ${server.join(' ')}`];
const pairsOf = (tape: string) => readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { request: string; response: string });
const messages = (response: string) => response.split('\n').filter(Boolean).map((m) => JSON.parse(m) as Record<string, unknown>);

describe('Content-Length framing (DAP)', () => {
  test('firefox-debugadapter: one JSON value per message, paired by seq/request_seq, the client bytes exact; replay exits 0, a changed adapter exits 1 naming the path, serve answers the client', async () => {
    const dir = temp();
    const tape = join(dir, 'firefox.ndjson');
    const [direct, recorded] = await Promise.all([
      run(client(LAUNCH, ADAPTER)),
      run(client(LAUNCH, ['node', CLI, 'record', '--out', tape, '--', ...teed(join(dir, 'recorded.bin'), ADAPTER)])),
    ]);
    expect(direct.code, direct.stderr).toBe(0);
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(recorded.stdout).toBe(direct.stdout);
    expect(direct.stdout).toContain('"supportsConditionalBreakpoints":true');
    expect(direct.stdout).toContain(`{"kind":"launch-failed","value":"Couldn't find the Firefox executable. Please correct the path given in your launch configuration."}`);

    const pairs = pairsOf(tape);
    expect(pairs.map((p) => JSON.parse(p.request).command)).toEqual(['initialize', 'launch', 'threads', 'disconnect']);
    expect(readFileSync(`${tape}.notes`, 'utf8')).toBe('{"run_start":1,"framing":"content-length"}\n');
    // Each pair holds the adapter's one response to its request: request_seq is the request's seq.
    for (const p of pairs) {
      const [answer, ...rest] = messages(p.response);
      expect(rest).toEqual([]);
      expect(answer).toMatchObject({ type: 'response', request_seq: JSON.parse(p.request).seq, command: JSON.parse(p.request).command });
    }
    expect(messages(pairs[1].response)[0]).toMatchObject({ success: false, message: "Couldn't find the Firefox executable. Please correct the path given in your launch configuration." });

    const unknown = JSON.stringify({ file: join(FIX, 'lsp/b.json'), firefoxExecutable: '/nonexistent/firefox' });
    const [replay, drift, served, unmatched] = await Promise.all([
      tapedeckInProcess(['replay', tape, '--', ...teed(join(dir, 'replayed.bin'), ADAPTER)]),
      tapedeckInProcess(['replay', tape, '--', ...changed('change')]),
      run(client(LAUNCH, ['node', CLI, 'serve', tape])),
      run(client(unknown, ['node', CLI, 'serve', tape, '--allow-unused'])),
    ]);
    // Replay sends the adapter the bytes the client sent, headers included.
    expect(replay.stderr).toContain('4 pair(s), 0 drift(s)');
    expect(replay.code).toBe(0);
    expect(readFileSync(join(dir, 'replayed.bin'))).toEqual(readFileSync(join(dir, 'recorded.bin')));
    // A changed capability is drift at its JSON path.
    expect(drift.code).toBe(1);
    expect(drift.stderr).toContain('pair 1: response drifted [TD1001]');
    expect(drift.stderr).toContain('$.body.supportsRestartFrame: expected true, got false');
    // Serve answers the DAP client as the adapter did.
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toBe(direct.stdout);
    // A request the tape lacks gets a DAP error response for its seq (not a JSON-RPC error the client would never match), and exit 1.
    expect(unmatched.code).toBe(1);
    expect(unmatched.stdout).toContain('{"kind":"launch-failed","value":"tapedeck serve: no recorded response for this request"}');
    expect(unmatched.stdout).toContain('{"kind":"disconnect-failed"');
  });

  test("the adapter's own output events (its debug log) land beside the response they preceded and replay as events, their timestamp filtered", async () => {
    const dir = temp();
    const tape = join(dir, 'log.ndjson');
    // An executable that exists and a port nothing listens on: the adapter logs that it connects, then fails.
    const launch = JSON.stringify({ file: join(FIX, 'lsp/a.json'), firefoxExecutable: '/bin/true', port: 1, log: { consoleLevel: { default: 'Debug' } } });
    const recorded = await run(client(launch, ['node', CLI, 'record', '--out', tape, '--', ...ADAPTER]));
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(recorded.stdout).toContain('{"kind":"launch-failed","value":"connect ECONNREFUSED 127.0.0.1:1"}');
    const launchPair = messages(pairsOf(tape)[1].response);
    expect(launchPair.map((m) => [m.type, m.event ?? m.command])).toEqual([['event', 'output'], ['response', 'launch']]);
    expect(launchPair[0].body).toMatchObject({ category: 'console', output: expect.stringMatching(/^DEBUG\|\d+\.\d+\|FirefoxDebugSession: Connecting to Firefox\n$/) });
    const replay = await tapedeckInProcess(['replay', tape, '--filter', 'DEBUG\\|[0-9.]+\\|=DEBUG|T|', '--', ...ADAPTER]);
    expect(replay.stderr).toContain('4 pair(s), 0 drift(s)');
    expect(replay.code).toBe(0);
  });

  test('an event that moves around a response, and the adapter seq it shifts, is no drift; a missing event is', async () => {
    const dir = temp();
    const tape = join(dir, 'events.ndjson');
    // Recorded with the output event after the initialize response; it lands in the launch pair.
    const recorded = await run(client(LAUNCH, ['node', CLI, 'record', '--out', tape, '--', ...changed('event-after')]));
    expect(recorded.code, recorded.stderr).toBe(0);
    const pairs = pairsOf(tape);
    expect(messages(pairs[0].response).map((m) => m.type)).toEqual(['response']);
    expect(messages(pairs[1].response).map((m) => [m.type, m.seq])).toEqual([['event', 2], ['response', 3]]);
    // Replayed with the event before the response: it is the initialize pair's now, and every adapter seq after it moved.
    const [moved, gone] = await Promise.all([
      tapedeckInProcess(['replay', tape, '--', ...changed('event-before')]),
      tapedeckInProcess(['replay', tape, '--', ...ADAPTER]),
    ]);
    expect(moved.stderr).toContain('4 pair(s), 0 drift(s)');
    expect(moved.code).toBe(0);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('pair 2: server message missing (output) [TD1004]');
    expect(gone.stderr).not.toContain('TD1001');
  });
});

