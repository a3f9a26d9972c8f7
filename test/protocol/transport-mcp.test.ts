import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT, run, useTempDirs, tapedeckInProcess } from '../helpers/cli.js';
import { startTapedeck } from '../helpers/net.js';
import { readProtocolTape, type TapePair } from '../../src/tape/protocol/tape.js';
import type { WireNote } from '../../src/tape/protocol/wire.js';

const temp = useTempDirs();
// server-everything's Streamable HTTP mode takes its port from PORT.
const EVERYTHING_HTTP = ['env', 'PORT={{port}}', 'node', join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'streamableHttp'];
const SDK_CLIENT = ['node', join(ROOT, 'examples/mcp-http-client.mjs')];
const GOLDEN = join(ROOT, 'goldens/mcp-everything-http.ndjson');

describe('MCP Streamable HTTP with the official SDK client', () => {
  test('recorded through the proxy: JSON-RPC pairs, SSE messages (progress notifications), one session, GET stream, DELETE', async () => {
    const dir = temp();
    const tape = join(dir, 'mcp.ndjson');
    const rec = await startTapedeck(['record', '--out', tape, '--transport', 'http', '--', ...EVERYTHING_HTTP]);
    const client = await run([...SDK_CLIENT, `${rec.address}/mcp`]);
    expect(client.stderr).toBe('');
    expect(client.code).toBe(0);
    const lines = client.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.find((l) => l.kind === 'progress').value).toEqual([1, 2, 3].map((progress) => ({ progress, total: 3 })));
    await rec.stop();

    const pairs = (await readProtocolTape(tape)).pairs as Array<TapePair & { wire: WireNote }>;
    // The GET stream and the DELETE are not agent requests: in the notes beside the tape, never tape lines.
    expect(readFileSync(tape, 'utf8')).not.toMatch(/"request":"(GET|DELETE) /);
    const kinds = pairs.map((p) => (p.request.startsWith('{') ? JSON.parse(p.request).method : p.request));
    expect(kinds.slice(0, 5)).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'tools/call', 'tools/call']);
    // The GET stream's pair is written when it ends, which is when the session is deleted.
    expect(kinds.slice(5).sort()).toEqual(['DELETE /mcp', 'GET /mcp']);
    expect(new Set(pairs.map((p) => p.wire.session))).toEqual(new Set([1]));
    expect(pairs[0].wire).toMatchObject({ method: 'POST', path: '/mcp', status: 200, sse: true });
    expect(pairs[1]).toMatchObject({ response: '', wire: { status: 202 } });
    const long = pairs.find((p) => p.request.includes('trigger-long-running-operation'));
    const messages = long.response.trim().split('\n').map((l: string) => JSON.parse(l));
    expect(messages.filter((m: { method?: string }) => m.method === 'notifications/progress')).toHaveLength(3);
    expect(messages.at(-1).result.content[0].text).toContain('Steps: 3');
    expect(pairs.find((p) => p.request === 'DELETE /mcp')).toMatchObject({ wire: { method: 'DELETE', status: 200 } });
    expect(pairs.find((p) => p.request === 'GET /mcp')).toMatchObject({ response: '', wire: { method: 'GET', sse: true, after: 2 } });
    expect(readFileSync(tape, 'utf8')).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/); // no session ids stored
  });

  test('the golden replays 0 against a fresh server; a changed tool result is 1 with its JSON path', async () => {
    const dir = temp();
    const tape = join(dir, 'edited.ndjson');
    writeFileSync(tape, readFileSync(GOLDEN, 'utf8').replace('Echo: hello over http', 'Echo: hello over HTTP'));
    copyFileSync(`${GOLDEN}.notes`, `${tape}.notes`);
    // Both tapes in one run, each against its own fresh server.
    const res = await tapedeckInProcess(['replay', GOLDEN, tape, '--jobs', '2', '--transport', 'http', '--', ...EVERYTHING_HTTP], { env: { CI: 'true' } });
    expect(res.stderr).toMatch(new RegExp(`ok +${GOLDEN.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(7 pairs`));
    expect(res.stderr).toContain('1 drift(s) in 1 tape(s)');
    expect(res.stderr).toContain('$.result.content[0].text: expected "Echo: hello over HTTP", got "Echo: hello over http"');
    expect(res.code).toBe(1);
  });

  test('serve --transport http stands in for the server: the SDK client gets the same answers, progress over SSE included', async () => {
    const srv = await startTapedeck(['serve', GOLDEN, '--transport', 'http']);
    const served = await run([...SDK_CLIENT, `${srv.address}/mcp`]);
    expect(served.stderr).toBe('');
    expect(served.code).toBe(0);
    const lines = served.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.find((l) => l.kind === 'server').value.name).toBe('mcp-servers/everything');
    expect(lines.find((l) => l.kind === 'echo').value.content[0].text).toBe('Echo: hello over http');
    expect(lines.find((l) => l.kind === 'progress').value).toHaveLength(3);
    const stopped = await srv.stop();
    expect(stopped.stderr).not.toContain('no recorded response');
    expect(stopped.code).toBe(0);
  });

  test('JSON answers (a stateless SDK server with enableJsonResponse): recorded, replayed 0 and served to the SDK client', async () => {
    const server = ['node', join(ROOT, 'examples/mcp-json-server.mjs'), '{{port}}'];
    const tape = join(temp(), 'json.ndjson');
    const rec = await startTapedeck(['record', '--out', tape, '--transport', 'http', '--', ...server]);
    const direct = await run([...SDK_CLIENT, `${rec.address}/mcp`]);
    expect(direct.code).toBe(0);
    expect(direct.stdout).toContain('hello from a JSON answer');
    await rec.stop();
    const pairs = (await readProtocolTape(tape)).pairs as Array<TapePair & { wire: WireNote }>;
    const call = pairs.find((p) => p.request.includes('"tools/call"'));
    expect(call.wire).toMatchObject({ status: 200, content_type: 'application/json' });
    expect(call.wire.sse).toBeUndefined();
    expect(call.wire.session).toBeUndefined();
    expect(JSON.parse(call.response).result.content[0].text).toBe('hello from a JSON answer');

    const replay = await tapedeckInProcess(['replay', tape, '--', ...server]);
    expect(replay.stderr).toContain('0 drift(s)');
    expect(replay.code).toBe(0);
    const srv = await startTapedeck(['serve', tape, '--transport', 'http']);
    const served = await run([...SDK_CLIENT, `${srv.address}/mcp`]);
    expect(served.stdout).toBe(direct.stdout);
    expect((await srv.stop()).code).toBe(0);
  });
});
