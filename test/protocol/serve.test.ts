import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { AGENT_SERVER, CLI, ROOT, run, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

const AGENT_GOLDEN = join(ROOT, 'goldens/agent-server.ndjson');
const MCP_GOLDEN = join(ROOT, 'goldens/mcp-everything.ndjson');
const AGENT_CLIENT = ['node', join(ROOT, 'examples/agent-client.mjs'), join(ROOT, 'examples/agent-requests.ndjson'), '--'];
const RPC_CLIENT = ['node', join(ROOT, 'examples/jsonrpc-client.mjs')];

const temp = useTempDirs();

describe('tapedeck serve (stand-in server)', () => {
  test('a real client gets the same conversation from the tape as from the server', async () => {
    const real = await run([...AGENT_CLIENT, ...AGENT_SERVER]);
    const served = await run([...AGENT_CLIENT, 'node', CLI, 'serve', AGENT_GOLDEN]);
    expect(served.stdout).toBe(real.stdout);
    expect(served.code).toBe(0);
    expect(served.stderr).toBe('');
  });

  test('an MCP client is answered from the MCP tape, requests renumbered', async () => {
    const dir = temp();
    const script = join(ROOT, 'examples/mcp-everything.script.ndjson');
    const direct = await run([...RPC_CLIENT, script, '--', 'node', CLI, 'serve', MCP_GOLDEN]);
    expect(direct.code).toBe(0);
    expect(direct.stdout).toContain('"name":"echo"');
    // Same conversation with other ids: matched ignoring the id, answered with the client's id.
    const shifted = join(dir, 'script.ndjson');
    const lines = (await import('node:fs')).readFileSync(script, 'utf8').trim().split('\n').map((l) => {
      const m = JSON.parse(l);
      if (m.id !== undefined) m.id = `req-${m.id}`;
      return JSON.stringify(m);
    });
    writeFileSync(shifted, `${lines.join('\n')}\n`);
    const renumbered = await run([...RPC_CLIENT, shifted, '--', 'node', CLI, 'serve', MCP_GOLDEN]);
    expect(renumbered.code).toBe(0);
    expect(renumbered.stdout).toContain('"id":"req-9"');
    expect(renumbered.stdout).not.toMatch(/"id":9\b/);
  });

  test('an unmatched request gets an error (JSON-RPC error for JSON-RPC) and exit 1', async () => {
    const input = [
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tapedeck-example","version":"1.0.0"}}}',
      '{"jsonrpc":"2.0","id":2,"method":"tools/destroy_everything"}',
    ].join('\n');
    const res = await tapedeckInProcess(['serve', MCP_GOLDEN, '--allow-unused'], { input: `${input}\n` });
    expect(res.code).toBe(1);
    const replies = res.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(replies.find((r) => r.id === 1)?.result?.serverInfo?.name).toBe('mcp-servers/everything');
    expect(replies.at(-1)).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'tapedeck serve: no recorded response for this request' } });
    expect(res.stderr).toContain(`${MCP_GOLDEN}: no recorded response matches request 2: {"jsonrpc":"2.0","id":2,"method":"tools/destroy_everything"}`);

    const seed000 = await tapedeckInProcess(['serve', AGENT_GOLDEN, '--allow-unused'], { input: '{"op":"inspect"}\n' });
    expect(seed000.code).toBe(1);
    expect(seed000.stdout.trim().split('\n').map((l) => JSON.parse(l).kind)).toEqual(['error', 'done']);
  });

  test('recorded pairs the client never asked for fail the run unless --allow-unused', async () => {
    const input = '{"op":"explain","code":"MT4099"}\n';
    const strict = await tapedeckInProcess(['serve', AGENT_GOLDEN], { input });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('"code":"MT4099"');
    expect(strict.stderr).toContain(`${AGENT_GOLDEN}:1: recorded pair never requested: {"op":"check","path":"main.mty","include_source":true}`);
    const relaxed = await tapedeckInProcess(['serve', AGENT_GOLDEN, '--allow-unused'], { input });
    expect(relaxed.code).toBe(0);
  });

  test('requests match through the same normalisers as replay', async () => {
    const dir = temp();
    const tape = join(dir, 't.ndjson');
    writeFileSync(tape, `${JSON.stringify({ request: '{"op":"now","nonce":"abc123"}', response: '{"kind":"done","exit_code":0}\n' })}\n`);
    const strict = await tapedeckInProcess(['serve', tape], { input: '{"op":"now","nonce":"zzz999"}\n' });
    expect(strict.code).toBe(1);
    const normalised = await tapedeckInProcess(['serve', tape, '--ignore', '$.nonce'], { input: '{"op":"now","nonce":"zzz999"}\n' });
    expect(normalised.stdout).toBe('{"kind":"done","exit_code":0}\n');
    expect(normalised.code).toBe(0);
  });

  test('a malformed tape is exit 2 before anything is served', async () => {
    const dir = temp();
    const tape = join(dir, 'bad.ndjson');
    writeFileSync(tape, '{"request":"x","response":"y"}\nnot json\n');
    const res = await tapedeckInProcess(['serve', tape], { input: 'x\n' });
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain(`${tape}:2: not a valid tape pair: invalid JSON`);
  });
});
