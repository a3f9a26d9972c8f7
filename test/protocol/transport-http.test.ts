import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { AGENT_SERVER, ROOT, run, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';
import { startTapedeck } from '../helpers/net.js';
import '../../src/matchers/index.js';
import { readProtocolTape, type TapePair } from '../../src/tape/protocol/tape.js';
import type { WireNote } from '../../src/tape/protocol/wire.js';

const temp = useTempDirs();
const TOKEN = 's3cret-token-value';
const SERVER_HTTP = [...AGENT_SERVER, '--transport', 'http', '--listen', '127.0.0.1:{{port}}', '--auth-token', TOKEN];
const CLIENT = ['node', join(ROOT, 'examples/agent-net-client.mjs')];
const REQUESTS = join(ROOT, 'examples/agent-requests.ndjson');
const GOLDEN = join(ROOT, 'goldens/agent-server-http.ndjson');

const post = (url: string, path: string, body: string, auth?: string) =>
  fetch(`${url}${path}`, { method: 'POST', body, headers: auth ? { authorization: auth } : {} });

/** A POST /v1/agent whose body arrives in chunks with no declared length (chunked encoding). */
const postStreamed = (url: string, chunks: number, size: number) =>
  fetch(`${url}/v1/agent`, {
    method: 'POST',
    duplex: 'half',
    body: new ReadableStream({
      start(c) {
        for (let i = 0; i < chunks; i++) c.enqueue(new TextEncoder().encode('y'.repeat(size)));
        c.close();
      },
    }),
  } as RequestInit);

describe('seed 000 over HTTP', () => {
  test('record through the proxy: single, batch, version and a 401, the token never stored', async () => {
    const dir = temp();
    const tape = join(dir, 'http.ndjson');
    const rec = await startTapedeck(['record', '--out', tape, '--transport', 'http', '--', ...SERVER_HTTP]);
    expect(rec.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const client = await run([...CLIENT, 'http', rec.address, REQUESTS, '--token', TOKEN]);
    expect(client.code).toBe(0);
    expect(client.stdout).toContain('"op":"explain"');
    // Transparent: status, Content-Type and body come through as the server sent them.
    const through = await post(rec.address, '/v1/agent', '{"op":"fmt","path":"main.mty","check":true}', `Bearer ${TOKEN}`);
    expect(through.headers.get('content-type')).toBe('application/x-ndjson');
    expect(await through.text()).toBe('{"kind":"result","op":"fmt","ok":true,"would_reformat":true}\n{"kind":"done","exit_code":0}\n');
    const denied = await fetch(`${rec.address}/v1/agent/version`);
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toBe('Bearer');
    expect(await denied.text()).toBe('{"kind":"error","message":"unauthorized"}\n');
    const stopped = await rec.stop();
    expect(stopped.code).toBe(0);

    const text = readFileSync(tape, 'utf8');
    expect(text).not.toContain(TOKEN);
    expect(readFileSync(`${tape}.notes`, 'utf8')).not.toContain(TOKEN);
    // Seed 000's tape: every line exactly its two keys, agent requests only (no GET, no 401 from the transport).
    const lines = text.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => Object.keys(l).join())).toEqual(Array(9).fill('request,response'));
    expect(lines.some((l) => l.request.startsWith('GET '))).toBe(false);
    // tapedeck reads the notes beside it: 6 single POSTs (halt is not sent over HTTP), a batch of 2, version, one more POST, the 401.
    const pairs = (await readProtocolTape(tape)).pairs as Array<TapePair & { wire: WireNote }>;
    expect(pairs).toHaveLength(11);
    expect(pairs[0]).toMatchObject({ request: '{"op":"check","path":"main.mty","include_source":true}', wire: { transport: 'http', method: 'POST', path: '/v1/agent', status: 200, content_type: 'application/x-ndjson', auth: true } });
    expect(pairs[0].response.trim().split('\n').at(-1)).toBe('{"kind":"done","exit_code":1}');
    expect(pairs[6].wire).toMatchObject({ path: '/v1/agent/batch', batch: 1 });
    expect(pairs[7].wire).toMatchObject({ path: '/v1/agent/batch', batch: 1 });
    expect(pairs[6].request).toBe(pairs[0].request);
    expect(pairs[6].response).toBe(pairs[0].response);
    expect(pairs[8]).toMatchObject({ request: 'GET /v1/agent/version', response: '{"mty_version":"0.35.0","agent_protocol":"1.0"}\n', wire: { status: 200, content_type: 'application/json' } });
    expect(pairs[10]).toMatchObject({ request: 'GET /v1/agent/version', response: '{"kind":"error","message":"unauthorized"}\n', wire: { status: 401 } });
    expect(pairs[10].wire.auth).toBeUndefined();

    // Replay: unchanged is exit 0; a changed version is exit 1 with JSON paths.
    const same = await tapedeckInProcess(['replay', tape, '--transport', 'http', '--auth-token', TOKEN, '--', ...SERVER_HTTP]);
    expect(same.stderr).toContain('0 drift(s)');
    expect(same.code).toBe(0);
    const changed = await tapedeckInProcess(['replay', tape, '--transport', 'http', '--auth-token', TOKEN, '--json', '--', ...SERVER_HTTP], { env: { AGENT_SERVER_VERSION: '0.36.0', CI: 'true' } });
    expect(changed.code).toBe(1);
    const envelopes = changed.stdout.trim().split('\n').map((l) => JSON.parse(l));
    // stdout carries only the seed-001 envelopes: one drift, at the version pair.
    expect(envelopes).toHaveLength(1);
    expect(envelopes[0]).toMatchObject({ code: 'TD1001', span: { line: 9 } });
    expect(changed.stderr).toContain(`${tape}:9: pair 9: response drifted [TD1001]`);
    expect(changed.stderr).toContain('$.mty_version: expected "0.35.0", got "0.36.0"');
  });

  test('the vitest matcher replays over HTTP too', async () => {
    await expect(GOLDEN).toReplayCleanly(SERVER_HTTP, { transport: { transport: 'http', authToken: TOKEN } });
    const changed = { ...process.env, AGENT_SERVER_VERSION: '0.36.0' };
    await expect(GOLDEN).not.toReplayCleanly(SERVER_HTTP, { env: changed, transport: { transport: 'http', authToken: TOKEN } });
  });

  test('a pair recorded with a bearer token needs --auth-token to replay (exit 2 naming the line)', async () => {
    const res = await tapedeckInProcess(['replay', GOLDEN, '--transport', 'http', '--', ...SERVER_HTTP]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${GOLDEN}:1: this pair was recorded with a bearer token: give --auth-token`);
  });

  test('the checked-in golden replays clean, and a changed response names its pair and path', async () => {
    const clean = await tapedeckInProcess(['replay', GOLDEN, '--transport', 'http', '--auth-token', TOKEN, '--', ...SERVER_HTTP]);
    expect(clean.code).toBe(0);
    const dir = temp();
    const tape = join(dir, 'edited.ndjson');
    writeFileSync(tape, readFileSync(GOLDEN, 'utf8').replace('\\"would_reformat\\":true', '\\"would_reformat\\":false'));
    copyFileSync(`${GOLDEN}.notes`, `${tape}.notes`); // how each pair travelled: beside the tape
    const res = await tapedeckInProcess(['replay', tape, '--transport', 'http', '--auth-token', TOKEN, '--', ...SERVER_HTTP], { env: { CI: 'true' } });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('$.would_reformat: expected false, got true');
    // --update accepts the live response and keeps how the pair travelled.
    const updated = await tapedeckInProcess(['replay', tape, '--update', '--auth-token', TOKEN, '--', ...SERVER_HTTP]);
    expect(updated.code).toBe(0);
    expect(readFileSync(tape, 'utf8')).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  test('a token a server echoes in a body is stored as a placeholder and put back on replay', async () => {
    // A running upstream that says who called it: the token lands in the response body.
    const echo = createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
      res.end(`${JSON.stringify({ kind: 'log', text: `caller ${req.headers.authorization}` })}\n{"kind":"done","exit_code":0}\n`);
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    const upstream = `http://127.0.0.1:${(echo.address() as { port: number }).port}`;
    try {
      const tape = join(temp(), 'echo.ndjson');
      const rec = await startTapedeck(['record', '--out', tape, '--transport', 'http', '--upstream', upstream, '--max-body', '256']);
      const res = await post(rec.address, '/v1/agent', '{"op":"whoami"}', `Bearer ${TOKEN}`);
      expect(await res.text()).toContain(`caller Bearer ${TOKEN}`);
      // Bodies over --max-body are refused, whether declared up front or streamed in chunks.
      expect((await post(rec.address, '/v1/agent', 'x'.repeat(300))).status).toBe(413);
      // The client must get the 413 rather than a reset connection, however its chunks race the answer.
      for (let i = 0; i < 5; i++) expect((await postStreamed(rec.address, 4, 100)).status).toBe(413);
      await rec.stop();
      expect(readFileSync(tape, 'utf8').trim().split('\n')).toHaveLength(1); // refused bodies are not recorded
      const text = readFileSync(tape, 'utf8');
      expect(text).not.toContain(TOKEN);
      expect(text).toContain('caller Bearer {{tapedeck.env.TAPEDECK_AUTH_TOKEN}}');
      const replay = await tapedeckInProcess(['replay', tape, '--url', upstream, '--auth-token', TOKEN]);
      expect(replay.stderr).toContain('0 drift(s)');
      expect(replay.code).toBe(0);
    } finally {
      echo.close();
    }
  });

  test('the proxy answers a request it cannot parse with 400 (not an upstream failure) and closes a refused client that keeps sending', async () => {
    const upstreamServer = createServer((_req, res) => res.end('{"kind":"done","exit_code":0}\n'));
    await new Promise<void>((r) => upstreamServer.listen(0, '127.0.0.1', r));
    try {
      const rec = await startTapedeck(['record', '--out', join(temp(), 't.ndjson'), '--transport', 'http', '--upstream', `http://127.0.0.1:${(upstreamServer.address() as { port: number }).port}`, '--max-body', '256']);
      const { port } = new URL(rec.address);
      /** Writes `head`, then (with `drip`) a byte every 50 ms without ever closing its side; resolves with what came back once the proxy closed the connection. */
      const exchange = (head: string, drip = false) =>
        new Promise<string>((resolve) => {
          const socket = connect({ host: '127.0.0.1', port: Number(port), allowHalfOpen: true }, () => socket.write(head));
          let got = '';
          const timer = drip ? setInterval(() => socket.writable && socket.write('x'), 50) : undefined;
          socket.on('data', (d) => (got += d.toString()));
          socket.on('error', () => {});
          socket.on('close', () => {
            clearInterval(timer);
            resolve(got);
          });
          if (!drip) socket.on('end', () => socket.end());
        });
      expect(await exchange('POST /v1/agent HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      // Refused, then it sends on and never closes: the proxy ends the connection after its linger.
      expect(await exchange('POST /v1/agent HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n', true)).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
      const { stderr } = await rec.stop();
      expect(stderr).not.toContain('upstream');
    } finally {
      upstreamServer.close();
    }
  });

  test('a response past the tape line limit still reaches the client; the tape keeps the pairs before it and says why it stopped', async () => {
    const reply = (text: string) => `${JSON.stringify({ kind: 'log', text })}\n{"kind":"done","exit_code":0}\n`;
    const upstreamServer = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
        res.end(reply(body.includes('big') ? 'x'.repeat(300_000) : 'ok'));
      });
    });
    await new Promise<void>((r) => upstreamServer.listen(0, '127.0.0.1', r));
    try {
      const tape = join(temp(), 'big.ndjson');
      const upstream = `http://127.0.0.1:${(upstreamServer.address() as { port: number }).port}`;
      const rec = await startTapedeck(['record', '--out', tape, '--transport', 'http', '--upstream', upstream], { TAPEDECK_MAX_LINE_BYTES: '200000' });
      const answers: string[] = [];
      for (const op of ['small', 'big', 'after']) answers.push(await (await post(rec.address, '/v1/agent', JSON.stringify({ op }))).text());
      expect(answers).toEqual([reply('ok'), reply('x'.repeat(300_000)), reply('ok')]);
      const stopped = await rec.stop();
      expect(readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(JSON.parse(l).request).op)).toEqual(['small']);
      expect(stopped.stderr).toContain(`a response over the 200000-byte tape line limit (raise it with TAPEDECK_MAX_LINE_BYTES) cannot be recorded; the tape ${tape} keeps the 1 complete pair(s) before it`);
      expect(stopped.stderr).toContain(`2 pair(s) were not recorded to ${tape}`);
    } finally {
      upstreamServer.close();
    }
  });

  test('a server that dies mid-tape is TD1003 with its exit status; one that never answers is TD1002', async () => {
    const crashed = await tapedeckInProcess(['replay', GOLDEN, '--auth-token', TOKEN, '--', ...SERVER_HTTP], { env: { AGENT_SERVER_CRASH_ON: 'explain', CI: 'true' } });
    expect(crashed.code).toBe(1);
    expect(crashed.stderr).toContain(`${GOLDEN}:3: pair 3: server exited (exit code 3) before completing this response [TD1003]`);
    expect(crashed.stderr).toContain('agent-server: panic while handling explain');
    const hung = await tapedeckInProcess(['replay', GOLDEN, '--auth-token', TOKEN, '--timeout-ms', '300', '--', ...SERVER_HTTP], { env: { AGENT_SERVER_HANG_ON: 'fmt', CI: 'true' } });
    expect(hung.code).toBe(1);
    expect(hung.stderr).toContain(`${GOLDEN}:4: pair 4: no complete response within 300 ms [TD1002]`);
  });

  test('serve over HTTP: single, batch, version; 401 with WWW-Authenticate unless the bearer token (any case) matches', async () => {
    const srv = await startTapedeck(['serve', GOLDEN, '--transport', 'http', '--auth-token', TOKEN, '--allow-unused']);
    const url = srv.address;
    // replay --url against a running server: here the stand-in itself, every pair answered once.
    const replayed = await tapedeckInProcess(['replay', GOLDEN, '--url', url, '--auth-token', TOKEN]);
    expect(replayed.stderr).toContain('0 drift(s)');
    expect(replayed.code).toBe(0);
    const none = await post(url, '/v1/agent', '{"op":"explain","code":"MT4099"}');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(await none.json()).toEqual({ kind: 'error', message: 'unauthorized' });
    expect((await post(url, '/v1/agent', '{"op":"explain","code":"MT4099"}', 'Bearer wrong')).status).toBe(401);
    expect((await post(url, '/v1/agent', '{"op":"explain","code":"MT4099"}', `Basic ${TOKEN}`)).status).toBe(401);

    const single = await post(url, '/v1/agent', '{"op":"explain","code":"MT4099"}', `bEaReR ${TOKEN}`);
    expect(single.status).toBe(200);
    expect(single.headers.get('content-type')).toBe('application/x-ndjson');
    expect((await single.text()).trim().split('\n').map((l) => JSON.parse(l).kind)).toEqual(['result', 'done']);
    const batch = await post(url, '/v1/agent/batch', '{"op":"check","path":"clean.mty"}\n{"op":"explain","code":"MT4099"}\n', `Bearer ${TOKEN}`);
    expect((await batch.text()).trim().split('\n').map((l) => JSON.parse(l).kind)).toEqual(['log', 'progress', 'progress', 'result', 'done', 'result', 'done']);
    const version = await fetch(`${url}/v1/agent/version`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(version.headers.get('content-type')).toBe('application/json');
    expect(await version.json()).toEqual({ mty_version: '0.35.0', agent_protocol: '1.0' });
    const unknown = await post(url, '/v1/agent', '{"op":"inspect"}', `Bearer ${TOKEN}`);
    expect((await unknown.text()).trim().split('\n').map((l) => JSON.parse(l).kind)).toEqual(['error', 'done']);
    const stopped = await srv.stop();
    expect(stopped.code).toBe(1); // the unmatched request
    expect(stopped.stderr).toContain('no recorded response matches request: {"op":"inspect"}');
  });

  test('serve: loopback by default, bodies over --max-body refused with 413, exit 0 when everything was used', async () => {
    const dir = temp();
    const tape = join(dir, 'one.ndjson');
    writeFileSync(tape, `${readFileSync(GOLDEN, 'utf8').split('\n').find((l) => l.includes('explain'))}\n`);
    const srv = await startTapedeck(['serve', tape, '--transport', 'http', '--max-body', '64']);
    expect(srv.address).toMatch(/^http:\/\/127\.0\.0\.1:/);
    const big = await post(srv.address, '/v1/agent', JSON.stringify({ op: 'explain', code: 'x'.repeat(200) }));
    expect(big.status).toBe(413);
    for (let i = 0; i < 5; i++) expect((await postStreamed(srv.address, 8, 64)).status).toBe(413);
    const ok = await post(srv.address, '/v1/agent', '{"op":"explain","code":"MT4099"}');
    expect(ok.status).toBe(200);
    expect((await srv.stop()).code).toBe(0);
  });
});
