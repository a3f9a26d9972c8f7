import { describe, expect, test } from 'vitest';
import { SseParser, splitAtDone } from '../../src/plumbing/net/http-wire.js';
import { parseHostPort, parseUpstream } from '../../src/plumbing/net/endpoint.js';
import { pairsOf } from '../../src/recorder/net/http-pairs.js';
import { withWire, wireOf } from '../../src/tape/protocol/wire.js';

describe('transport building blocks', () => {
  test('SSE events split across chunks, multi-line data, comments and data-less priming events', () => {
    const p = new SseParser();
    const chunks = ['id: 1\nevent: mess', 'age\ndata: {"a":\ndata: 1}\n\n: keep-alive\n\nid: 2\ndata:\n\n', 'data: {"b":2}\r\n\r\n'];
    const events = chunks.flatMap((c) => p.push(Buffer.from(c)));
    expect(events).toEqual([
      { event: 'message', id: '1', data: '{"a":\n1}' },
      { event: undefined, id: '2', data: '{"b":2}' },
    ]);
  });

  test('a seed-000 batch response is cut at each done line; leftovers stay with the last', () => {
    const body = '{"kind":"log"}\n{"kind":"done","exit_code":0}\n{"kind":"done","exit_code":1}\n{"kind":"log","text":"late"}\n';
    expect(splitAtDone(body, 2)).toEqual(['{"kind":"log"}\n{"kind":"done","exit_code":0}\n', '{"kind":"done","exit_code":1}\n{"kind":"log","text":"late"}\n']);
    expect(splitAtDone('{"kind":"error"}\n', 2)).toHaveLength(1);
  });

  test('--listen is loopback unless it names an address; --upstream takes http:// and unix:', () => {
    expect(parseHostPort('8080')).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 8080 });
    expect(parseHostPort(':8080')).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 8080 });
    expect(parseHostPort('0.0.0.0:9090')).toEqual({ kind: 'tcp', host: '0.0.0.0', port: 9090 });
    expect(parseHostPort('[::1]:9090')).toEqual({ kind: 'tcp', host: '::1', port: 9090 });
    expect(() => parseHostPort('localhost')).toThrow(/--listen expects HOST:PORT/);
    expect(() => parseHostPort('1:99999')).toThrow(/--listen expects HOST:PORT/);
    expect(parseUpstream('http://127.0.0.1:3001/base/')).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 3001, base: '/base' });
    expect(parseUpstream('unix:/run/a.sock')).toEqual({ kind: 'unix', path: '/run/a.sock' });
    expect(() => parseUpstream('https://x:1')).toThrow(/only http:\/\/ and unix:/);
  });

  test('an HTTP exchange becomes seed-000 pairs; the wire note rides along as a last key and reads back', () => {
    const base = { method: 'POST', requestHeaders: { authorization: 'Bearer t', accept: '*/*' }, status: 200, contentType: 'application/x-ndjson', sse: false };
    const batch = pairsOf({ ...base, path: '/v1/agent/batch', requestBody: '{"op":"a"}\n\n{"op":"b"}\n', response: '{"kind":"done","exit_code":0}\n{"kind":"done","exit_code":1}\n' }, () => 7);
    expect(batch.map((p) => [p.request, p.response, p.wire.batch])).toEqual([
      ['{"op":"a"}', '{"kind":"done","exit_code":0}\n', 7],
      ['{"op":"b"}', '{"kind":"done","exit_code":1}\n', 7],
    ]);
    expect(batch[0].wire).toEqual({ transport: 'http', method: 'POST', path: '/v1/agent/batch', status: 200, content_type: 'application/x-ndjson', auth: true, batch: 7 });
    const get = pairsOf({ ...base, method: 'GET', path: '/v1/agent/version', requestBody: '', response: '{}\n', requestHeaders: {} }, () => 1);
    expect(get[0].request).toBe('GET /v1/agent/version');
    const line = withWire(JSON.stringify({ request: 'r', response: 's' }), get[0].wire);
    expect(JSON.parse(line)).toMatchObject({ request: 'r', response: 's', wire: { method: 'GET' } });
    expect(wireOf(line)).toEqual(get[0].wire);
    expect(wireOf('{"request":"r","response":"s"}')).toBeUndefined();
  });
});
