import { connect } from 'node:net';
import { copyFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { describe, expect, test } from 'vitest';
import { CLI, ROOT, tapedeck, tapedeckInProcess, useTempDirs } from '../../helpers/cli.js';
import { startTapedeck } from '../../helpers/net.js';

const temp = useTempDirs();
const AGENT = ['node', CLI, 'agent'];
const lines = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
/** The response lines of each request, split after each done line. */
function byRequest(text: string): Array<Record<string, unknown>[]> {
  const out: Array<Record<string, unknown>[]> = [[]];
  for (const m of lines(text)) {
    out[out.length - 1].push(m);
    if (m.kind === 'done') out.push([]);
  }
  return out.slice(0, -1);
}

describe('tapedeck agent over stdio (seed 000 wire format)', () => {
  test('explain, version, errors in band (bad JSON, unknown op, missing key, type mismatch), halt stops reading', async () => {
    const input = ['{"op":"explain","code":"TD1002"}', '{"op":"version"}', '{nope', '{"op":"frob"}', '{"op":"explain"}', '{"op":"replay","path":7}', '{"code":"TD1001"}', '{"op":"halt"}', '{"op":"version"}'].join('\n');
    const res = await tapedeckInProcess(['agent'], { input: `${input}\n` });
    expect(res.code).toBe(0);
    const answers = byRequest(res.stdout);
    expect(answers).toHaveLength(8); // nothing after halt
    expect(answers[0][0]).toMatchObject({ kind: 'result', op: 'explain', ok: true, code: 'TD1002', title: 'response never completed' });
    expect(answers[1][0]).toMatchObject({ kind: 'result', op: 'version', ok: true, agent_protocol: '1.0' });
    expect(answers[1][0].tapedeck_version).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    expect(answers[2][0]).toMatchObject({ kind: 'error' });
    expect(String(answers[2][0].message)).toMatch(/^malformed JSON: /);
    expect(answers[3][0]).toEqual({ kind: 'error', message: 'unknown op: frob' });
    expect(answers[4][0]).toEqual({ kind: 'error', message: 'explain: missing "code"' });
    expect(answers[5][0]).toEqual({ kind: 'error', message: 'replay: "path" must be a non-empty string, got 7' });
    expect(answers[6][0]).toEqual({ kind: 'error', message: 'malformed request: missing "op"' });
    expect(answers.map((a) => a.at(-1))).toEqual([0, 0, 2, 2, 2, 2, 2, 0].map((exit_code) => ({ kind: 'done', exit_code })));
    expect(answers[7]).toEqual([{ kind: 'done', exit_code: 0 }]);
  });

  test('replay streams one envelope per drift, then fix previews and writes the chosen alternative (session state)', async () => {
    const dir = temp();
    const tape = join(dir, 'drifted.ndjson');
    copyFileSync(join(ROOT, 'test/fixtures/agent/drifted.ndjson'), tape);
    const server = ['node', join(ROOT, 'examples/agent-server.mjs')];
    const input = [
      JSON.stringify({ op: 'replay', path: 'drifted.ndjson', command: server, include_source: true }),
      JSON.stringify({ op: 'fix', code: 'TD1001', dry_run: true }),
      JSON.stringify({ op: 'fix', code: 'TD1001', write: true }),
      JSON.stringify({ op: 'replay', path: 'drifted.ndjson', command: server }),
      JSON.stringify({ op: 'fix', code: 'TD1001' }),
    ].join('\n');
    // A preview alone writes nothing.
    const look = await tapedeckInProcess(['agent'], { input: `${input.split('\n').slice(0, 2).join('\n')}\n`, cwd: dir, env: { CI: 'true' } });
    expect(byRequest(look.stdout)[1][0]).toMatchObject({ kind: 'patch', applied: false });
    expect(readFileSync(tape, 'utf8')).toBe(readFileSync(join(ROOT, 'test/fixtures/agent/drifted.ndjson'), 'utf8'));
    const res = await tapedeckInProcess(['agent'], { input: `${input}\n`, cwd: dir, env: { CI: 'true' } });
    const [replay, preview, written, clean, none] = byRequest(res.stdout);
    const envelope = replay.find((m) => m.kind === 'envelope')!;
    expect(envelope).toMatchObject({ code: 'TD1001', schema_version: '1.0', span: { file: 'drifted.ndjson', line: 4 }, source: { start_line: 3 } });
    expect((envelope.source as { lines: string[] }).lines).toHaveLength(3);
    expect(replay.at(-2)).toEqual({ kind: 'result', op: 'replay', ok: false, tapes: 1, pairs: 7, drifts: 1, fix_count: 1 });
    expect(replay.at(-1)).toEqual({ kind: 'done', exit_code: 1 });
    expect(preview[0]).toMatchObject({ kind: 'patch', applied: false });
    expect(String(preview[0].new_content)).toContain('\\"would_reformat\\":true');
    expect(written[0]).toMatchObject({ kind: 'patch', applied: true, new_content: preview[0].new_content });
    expect(written.at(-1)).toEqual({ kind: 'done', exit_code: 0 });
    expect(readFileSync(tape, 'utf8')).toBe(preview[0].new_content);
    expect(clean.at(-1)).toEqual({ kind: 'done', exit_code: 0 });
    expect(none[0]).toEqual({ kind: 'error', message: 'fix: no TD1001 envelope for drifted.ndjson in this session (send a replay of it first)' });
    expect(none.at(-1)).toEqual({ kind: 'done', exit_code: 1 });
  });

  test('--single-shot: all of stdin is one request (pretty-printed too), the exit code is its own; later objects are errors', async () => {
    const one = await tapedeck(['agent', '--single-shot'], { input: '{\n  "op": "explain",\n  "code": "TD9999"\n}\n' });
    expect(one.code).toBe(2);
    expect(lines(one.stdout)).toEqual([{ kind: 'error', message: 'unknown code: TD9999 (tapedeck explain lists them)' }, { kind: 'done', exit_code: 2 }]);
    const two = await tapedeck(['agent', '--single-shot'], { input: '{"op":"version"}\n{"op":"halt"}\n' });
    expect(two.code).toBe(0);
    const out = lines(two.stdout);
    expect(out.map((m) => m.kind)).toEqual(['result', 'done', 'error']);
    expect(out[2].message).toBe('single-shot reads one request; ignored: {"op":"halt"}');
  });

  test("its own goldens replay clean: tapedeck testing tapedeck (stdio and HTTP)", async () => {
    const stdio = await tapedeckInProcess(['replay', join(ROOT, 'goldens/tapedeck-agent.ndjson'), '--', ...AGENT], { env: { CI: 'true' }, cwd: ROOT });
    expect(stdio.stderr).toContain('0 drift(s)');
    expect(stdio.code).toBe(0);
    const http = await tapedeckInProcess(['replay', join(ROOT, 'goldens/tapedeck-agent-http.ndjson'), '--', ...AGENT, '--transport', 'http', '--port', '{{port}}'], { env: { CI: 'true' }, cwd: ROOT });
    expect(http.stderr).toContain('0 drift(s)');
    expect(http.code).toBe(0);
  });
});

/** One HTTP exchange, with the response headers. */
function call(url: string, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('tapedeck agent over HTTP and a Unix socket (seed 000 transports)', () => {
  test('POST /v1/agent, POST /v1/agent/batch, GET /v1/agent/version, bearer auth; every connection closed after its response', async () => {
    const srv = await startTapedeck(['agent', '--transport', 'http', '--port', '0', '--auth-token', 'tok']);
    const auth = { authorization: 'bearer tok' }; // the scheme in any case
    const one = await call(srv.address, 'POST', '/v1/agent', '{"op":"explain","code":"TD1001"}', auth);
    expect(one.status).toBe(200);
    expect(one.headers['content-type']).toBe('application/x-ndjson');
    expect(one.headers.connection).toBe('close');
    expect(lines(one.body).map((m) => m.kind)).toEqual(['result', 'done']);
    const batch = await call(srv.address, 'POST', '/v1/agent/batch', '{"op":"version"}\n{"op":"frob"}\n', auth);
    expect(lines(batch.body).map((m) => m.kind)).toEqual(['result', 'done', 'error', 'done']);
    const version = await call(srv.address, 'GET', '/v1/agent/version', undefined, auth);
    expect(version.headers['content-type']).toBe('application/json');
    expect(JSON.parse(version.body)).toMatchObject({ agent_protocol: '1.0' });
    const denied = await call(srv.address, 'GET', '/v1/agent/version');
    expect(denied.status).toBe(401);
    expect(denied.headers['www-authenticate']).toBe('Bearer');
    expect(denied.body).toBe('{"kind":"error","message":"unauthorized"}\n');
    expect((await srv.stop()).code).toBe(0);
  });

  test('--socket PATH (mty\'s alias): 0600, each connection its own session until halt', async () => {
    const path = join(temp(), 'agent.sock');
    const srv = await startTapedeck(['agent', '--transport', 'unix', '--socket', path]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const text = await new Promise<string>((resolve) => {
      const s = connect(path);
      let got = '';
      s.on('data', (c: Buffer) => (got += c.toString()));
      s.on('close', () => resolve(got));
      s.write('{"op":"version"}\n{"op":"halt"}\n{"op":"version"}\n');
    });
    expect(lines(text).map((m) => m.kind)).toEqual(['result', 'done', 'done']);
    expect((await srv.stop()).code).toBe(0);
    const bad = await tapedeckInProcess(['agent', '--transport', 'unix', '--port', '9']);
    expect(bad.stderr).toContain('agent: --port applies to --transport http');
    expect(bad.code).toBe(2);
  });
});
