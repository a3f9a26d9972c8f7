import { describe, expect, test } from 'vitest';
import { HttpMessageParser, type ParseEvent } from '../../src/recorder/net/http-stream.js';

/** Feeds `text` one byte at a time (the worst split) and sums up what the parser saw. */
function parse(parser: HttpMessageParser, text: string, step = 1) {
  const events: ParseEvent[] = [];
  const bytes = Buffer.from(text, 'latin1');
  for (let i = 0; i < bytes.length; i += step) events.push(...parser.push(bytes.subarray(i, i + step)));
  const heads = events.flatMap((e) => (e.type === 'head' ? [e.head] : []));
  const body = Buffer.concat(events.flatMap((e) => (e.type === 'body' && e.data ? [e.data] : []))).toString('latin1');
  const raw = Buffer.concat(events.flatMap((e) => (e.type === 'body' || e.type === 'end') && e.raw ? [e.raw] : [])).toString('latin1');
  return { heads, body, raw, ends: events.filter((e) => e.type === 'end').length, events };
}

describe('the recording relay reads HTTP/1.1 on the side', () => {
  test('requests: Content-Length and chunked bodies split anywhere, keep-alive back to back, headers as Node reads them', () => {
    const chunked = '7\r\n{"op":"\r\n5;x=1\r\ncheck\r\n2\r\n"}\r\n0\r\nX-Trailer: 1\r\n\r\n';
    const text = `POST /v1/agent HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nAccept: x\r\naccept: y\r\nAuthorization: Bearer t\r\nauthorization: Bearer u\r\n\r\n{}POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${chunked}GET /v HTTP/1.1\r\n\r\n`;
    for (const step of [1, 7, 1000]) {
      const r = parse(new HttpMessageParser('request'), text, step);
      expect(r.heads.map((h) => `${h.method} ${h.path}`)).toEqual(['POST /v1/agent', 'POST /b', 'GET /v']);
      expect(r.heads[0].headers).toMatchObject({ accept: 'x, y', authorization: 'Bearer t', 'content-length': '2' });
      expect(r.body).toBe('{}{"op":"check"}');
      expect(r.raw).toBe(`{}${chunked}`); // what goes upstream: the chunk framing untouched
      expect(r.ends).toBe(3);
    }
  });

  test('responses: interim 1xx skipped, HEAD/204 bodiless, a body until close ends at eof, 101 becomes a tunnel', () => {
    const p = new HttpMessageParser('response');
    let head = false;
    p.bodiless = () => head;
    const a = parse(p, 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1 204 No Content\r\n\r\n');
    expect(a.heads.map((h) => h.status)).toEqual([100, 200, 204]);
    expect([a.body, a.ends]).toEqual(['abc', 2]);
    head = true;
    expect(parse(p, 'HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n').ends).toBe(1);
    head = false;
    const b = parse(p, 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: 1\n\n', 5);
    expect([b.body, b.ends]).toEqual(['data: 1\n\n', 0]);
    expect(p.eof()).toMatchObject({ cut: false, events: [{ type: 'end' }] });
    const c = parse(p, 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n\x81\x05hello');
    expect(c.events.map((e) => e.type)).toEqual(['head', 'tunnel']);
    expect(p.eof().cut).toBe(false);
  });

  test('a response cut inside its body is reported cut; a bad chunk size is an error, not a guess', () => {
    const p = new HttpMessageParser('response');
    parse(p, 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc');
    expect(p.eof().cut).toBe(true);
    expect(() => new HttpMessageParser('request').push(Buffer.from('POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'))).toThrow(/bad chunk size/);
  });
});
