import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { AGENT_SERVER, CLI, EVERYTHING_SERVER, ROOT, run, tapedeck, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

const AGENT_CLIENT = ['node', join(ROOT, 'examples/agent-client.mjs'), join(ROOT, 'examples/agent-requests.ndjson'), '--'];
const RPC_CLIENT = ['node', join(ROOT, 'examples/jsonrpc-client.mjs')];

const temp = useTempDirs();

function tapeLines(path: string): Array<{ request: string; response: string }> {
  return readFileSync(path, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
}

/** A line-per-message JSON-RPC server answering `method` with `result` (a JS expression) and anything else with "ok". */
function jsonRpcServer(dir: string, method: string, result: string): string {
  const server = join(dir, 'server.mjs');
  writeFileSync(server, `
    import { createInterface } from 'node:readline';
    createInterface({ input: process.stdin }).on('line', (l) => {
      const { id, method } = JSON.parse(l);
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result: method === ${JSON.stringify(method)} ? ${result} : 'ok' }) + '\\n');
    });`);
  return server;
}

describe('tapedeck record (protocol tap)', () => {
  test('a response past the tape line limit still reaches the client; the tape keeps the pairs before it and says why it stopped', async () => {
    const dir = temp();
    const tape = join(dir, 'flood.ndjson');
    // JSON-RPC: "big" is answered with one 300,000-byte line, over the 200,000-byte limit set below.
    const server = jsonRpcServer(dir, 'big', `'x'.repeat(300000)`);
    const input = ['small', 'big', 'after', 'last'].map((method, i) => JSON.stringify({ jsonrpc: '2.0', id: i + 1, method })).join('\n') + '\n';
    const r = await tapedeck(['record', '--out', tape, '--', 'node', server], { input, env: { TAPEDECK_MAX_LINE_BYTES: '200000' } });
    expect(r.code).toBe(2); // pairs were not recorded (issue 26.6);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(answers.map((a) => [a.id, a.result.length])).toEqual([[1, 2], [2, 300000], [3, 2], [4, 2]]);
    expect(tapeLines(tape).map((p) => JSON.parse(p.request).method)).toEqual(['small']);
    expect(r.stderr).toContain(`a response over the 200000-byte tape line limit (raise it with TAPEDECK_MAX_LINE_BYTES) cannot be recorded; the tape ${tape} keeps the 1 complete pair(s) before it`);
    expect(r.stderr).toContain(`3 pair(s) were not recorded to ${tape}`);
  });

  test('a pair whose escaped tape line would pass the limit is not written, though its response was under it', async () => {
    const dir = temp();
    const tape = join(dir, 'quotes.ndjson');
    // 90,000 quotes: a 180,000-byte response (each is \" in its JSON), a 360,000-byte tape line (escaped once more).
    const server = jsonRpcServer(dir, 'quotes', `'"'.repeat(90000)`);
    const input = ['small', 'quotes', 'after'].map((method, i) => JSON.stringify({ jsonrpc: '2.0', id: i + 1, method })).join('\n') + '\n';
    const r = await tapedeck(['record', '--out', tape, '--', 'node', server], { input, env: { TAPEDECK_MAX_LINE_BYTES: '200000' } });
    expect(r.code).toBe(2); // pairs were not recorded;
    expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l).result.length)).toEqual([2, 90000, 2]);
    // Every line of the tape is one a reader with the same limit takes.
    const lines = readFileSync(tape, 'utf8').trimEnd().split('\n');
    expect(lines.every((l) => Buffer.byteLength(l) <= 200000)).toBe(true);
    expect(tapeLines(tape).map((p) => JSON.parse(p.request).method)).toEqual(['small']);
    expect(r.stderr).toMatch(/a pair whose tape line is \d+ bytes, over the 200000-byte limit \(raise it with TAPEDECK_MAX_LINE_BYTES\) cannot be recorded; the tape .* keeps the 1 complete pair\(s\) before it/);
  });

  test('is transparent: the client sees exactly what the server says, and each pair is seed-000 JSON', async () => {
    const dir = temp();
    const tape = join(dir, 'agent.ndjson');
    const direct = await run([...AGENT_CLIENT, ...AGENT_SERVER]);
    const tapped = await run([...AGENT_CLIENT, 'node', CLI, 'record', '--out', tape, '--', ...AGENT_SERVER]);
    expect(tapped.code).toBe(0);
    expect(tapped.stdout).toBe(direct.stdout);

    const raw = readFileSync(tape, 'utf8');
    const lines = raw.trimEnd().split('\n');
    expect(lines).toHaveLength(7);
    for (const line of lines) {
      const pair = JSON.parse(line);
      expect(Object.keys(pair)).toEqual(['request', 'response']);
      // Seed 000: the response ends with its done line, and the line is exactly serde-style JSON.
      expect(pair.response).toMatch(/\{"kind":"done","exit_code":-?\d+\}\n$/);
      expect(line).toBe(JSON.stringify({ request: pair.request, response: pair.response }));
    }
    // Every byte the server wrote is in some response, in order.
    expect(tapeLines(tape).map((p) => p.response).join('')).toBe(direct.stdout);
    expect(tapeLines(tape)[0].request).toBe('{"op":"check","path":"main.mty","include_source":true}');
  });

  test('trims the request, appends across sessions, and passes stderr and the exit code through', async () => {
    const dir = temp();
    const tape = join(dir, 't.ndjson');
    const input = '   {"op":"explain","code":"MT4099"}  \n';
    const first = await tapedeckInProcess(['record', '--out', tape, '--', ...AGENT_SERVER], { input, env: { AGENT_SERVER_CRASH_ON: 'nothing' } });
    expect(first.code).toBe(0);
    const second = await tapedeckInProcess(['record', '--out', tape, '--', ...AGENT_SERVER], { input: '{"op":"fmt","path":"main.mty"}\n', env: { AGENT_SERVER_CRASH_ON: 'fmt' } });
    expect(second.code).toBe(3); // the server's exit code is the tap's
    expect(second.stderr).toContain('agent-server: panic while handling fmt');
    const pairs = tapeLines(tape);
    expect(pairs).toHaveLength(2);
    expect(pairs[0].request).toBe('{"op":"explain","code":"MT4099"}');
    // A request the server died on is still recorded, with what it got (nothing).
    expect(pairs[1]).toEqual({ request: '{"op":"fmt","path":"main.mty"}', response: '' });
  });

  test('a tape it cannot write (/dev/full) is reported once and the session still works', async () => {
    const direct = await run([...AGENT_CLIENT, ...AGENT_SERVER]);
    const tapped = await run([...AGENT_CLIENT, 'node', CLI, 'record', '--out', '/dev/full', '--kind', 'protocol', '--', ...AGENT_SERVER]);
    expect(tapped.code).toBe(2); // the session worked, the tape did not: not recorded is not a success;
    expect(tapped.stdout).toBe(direct.stdout);
    const reports = tapped.stderr.split('\n').filter((l) => l.includes('cannot write the tape /dev/full'));
    expect(reports).toHaveLength(1);
    expect(tapped.stderr).toContain('7 pair(s) were not recorded');
  });

  test('jsonrpc: MCP server-everything recorded through the tap, unsolicited messages kept in some pair', async () => {
    const dir = temp();
    const tape = join(dir, 'mcp.ndjson');
    const script = join(ROOT, 'examples/mcp-everything.script.ndjson');
    const tapped = await run([...RPC_CLIENT, script, '--', 'node', CLI, 'record', '--out', tape, '--', ...EVERYTHING_SERVER]);
    expect(tapped.code).toBe(0);
    const pairs = tapeLines(tape);
    expect(pairs.map((p) => JSON.parse(p.request).method)).toEqual([
      'initialize', 'notifications/initialized', 'tools/list', 'tools/call', 'tools/call',
      'resources/list', 'resources/templates/list', 'prompts/list', 'prompts/get', 'ping',
    ]);
    // A notification gets no response of its own.
    expect(pairs[1].response === '' || !pairs[1].response.includes('"id"')).toBe(true);
    for (const [i, p] of pairs.entries()) {
      const id = JSON.parse(p.request).id;
      if (id === undefined) continue;
      const messages = p.response.trimEnd().split('\n').map((l) => JSON.parse(l));
      // Each request's response ends with the message carrying its id.
      expect(messages.at(-1).id, `pair ${i + 1}`).toBe(id);
    }
    // Everything the client saw is in the tape.
    expect(pairs.map((p) => p.response).join('')).toBe(tapped.stdout);
  });

  test('--redact-env stores a placeholder, and replay puts the real value back', async () => {
    const dir = temp();
    const tape = join(dir, 'secret.ndjson');
    const server = ['node', join(ROOT, 'test/fixtures/secret-server.mjs')];
    const secret = 'sk-live-3f9a8b7c6d5e';
    const input = `{"op":"whoami","token":"${secret}"}\n`;
    const rec = await tapedeckInProcess(['record', '--out', tape, '--redact-env', 'API_TOKEN', '--', ...server], { input, env: { API_TOKEN: secret } });
    expect(rec.code).toBe(0);
    expect(rec.stdout).toContain(secret); // the live client still sees the real value
    const stored = readFileSync(tape, 'utf8');
    expect(stored).not.toContain(secret);
    expect(stored).toContain('{{tapedeck.env.API_TOKEN}}');

    const ok = await tapedeckInProcess(['replay', tape, '--', ...server], { env: { API_TOKEN: secret } });
    expect(ok.code).toBe(0);
    // Another machine with another token: still clean, since both sides use the live value.
    const other = await tapedeckInProcess(['replay', tape, '--', ...server], { env: { API_TOKEN: 'sk-other-value' } });
    expect(other.code).toBe(0);
    const missing = await tapedeckInProcess(['replay', tape, '--', ...server], { env: { API_TOKEN: undefined } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`${tape}:1: the tape has a redacted value for API_TOKEN, but API_TOKEN is not set`);
  });

  test('usage errors exit 2 with a message, and a command that cannot start exits 2', async () => {
    const noOut = await tapedeckInProcess(['record', '--', 'node']);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toContain('--out FILE is required');
    const dir = temp();
    const tape = join(dir, 't.ndjson');
    const missing = await tapedeckInProcess(['record', '--out', tape, '--', '/no/such/server']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot start /no/such/server: command not found');
    expect(missing.stderr).not.toMatch(/\n\s+at /); // no stack trace
    const badBoundary = await tapedeckInProcess(['record', '--out', tape, '--boundary', 'sometimes', '--', 'cat']);
    expect(badBoundary.code).toBe(2);
    expect(badBoundary.stderr).toContain('--boundary must be auto, done, jsonrpc, idle:MS or id:PATH');
    expect(existsSync(tape)).toBe(false);
  });

  test('--boundary idle:MS frames a non-JSON line protocol by quiet periods', async () => {
    const dir = temp();
    const tape = join(dir, 'plain.ndjson');
    const server = ['node', join(ROOT, 'test/fixtures/plain-server.mjs')];
    // The client waits for each answer, as a person would: the framing is then never a race.
    const rec = await run(['node', join(ROOT, 'test/fixtures/paced-client.mjs'), '400', 'hello', 'say it twice', '--', 'node', CLI, 'record', '--out', tape, '--boundary', 'idle:150', '--', ...server]);
    expect(rec.code).toBe(0);
    expect(tapeLines(tape)).toEqual([
      { request: 'hello', response: 'you said: hello\n' },
      { request: 'say it twice', response: 'you said: say it twice\nand again\n' },
    ]);
    const replay = await tapedeckInProcess(['replay', tape, '--boundary', 'idle:150', '--', ...server]);
    expect(replay.code).toBe(0);
    const changed = await tapedeckInProcess(['replay', tape, '--boundary', 'idle:150', '--', ...server], { env: { PLAIN_SUFFIX: 'and once more' } });
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain('-and again');
    expect(changed.stderr).toContain('+and once more');
    writeFileSync(join(dir, 'unused'), '');
  });
});
