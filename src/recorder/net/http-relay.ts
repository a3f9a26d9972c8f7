import { isUtf8 } from 'node:buffer';
import type { IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { LINGER_MS, SseParser, bodyTooLargeReply, isSse } from '../../plumbing/net/http-wire.js';
import { type Endpoint, describeEndpoint } from '../../plumbing/net/endpoint.js';
import type { HttpExchange } from './http-pairs.js';
import { RecordBudget } from '../stdio/budget.js';
import { HttpMessageParser, type MessageHead, type ParseEvent } from './http-stream.js';

export interface RelayContext {
  upstream: Endpoint & { base?: string };
  limit: number;
  /**
   * A request head went upstream: its session, for a GET how many pairs of it had completed, and
   * its place in the tape (`seq`: pairs are written in the order their requests started).
   */
  onRequest(headers: IncomingHttpHeaders, method: string): { session?: number; after?: number; seq?: number };
  /** A request that took a place (`seq`) will never be recorded (refused, or no response came). */
  abandon(seq: number): void;
  /** A request's whole body arrived (before its server could answer it elsewhere: MCP's legacy SSE stream). */
  requestBody?(path: string, seq: number | undefined, body: string): void;
  /** An SSE event of a response (`stream` stands for its exchange; `first`: the stream's first event). */
  sseEvent?(stream: object, event: string | undefined, data: string, first: boolean): void;
  sessionOf(id: string | string[] | undefined): number | undefined;
  record(ex: HttpExchange): void;
  /** A response too large for the tape: the recording stops, the relay goes on. */
  giveUp(reason: string): void;
  report(message: string): void;
}

interface Pending {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer[];
  size: number;
  session?: number;
  after?: number;
  seq?: number;
  response?: { status: number; headers: IncomingHttpHeaders; sse: boolean; parser?: SseParser; messages: string[]; chunks: Buffer[] };
  done?: boolean;
}

const DROPPED = new Set(['host', 'proxy-authorization', 'proxy-connection']);

/**
 * One client connection of the recording proxy, relayed as raw bytes: the
 * server's bytes go to the client as they arrive, untouched, and the client's
 * go upstream with only the Host line (and a base path) changed. Each message
 * is parsed on the side, after forwarding, into an exchange for the tape. The
 * relay speaks for itself only to refuse a body over the limit (413) and when
 * the server cannot be reached (502). Returns a function that ends the
 * connection, recording what its open exchanges had.
 */
export function relayConnection(client: Socket, ctx: RelayContext): () => void {
  const up = ctx.upstream;
  client.setNoDelay(true);
  const upstream = up.kind === 'unix' ? connect({ path: up.path }) : connect({ host: up.host, port: up.port, noDelay: true });
  const requests = new HttpMessageParser('request');
  const responses = new HttpMessageParser('response');
  /** Requests sent upstream, oldest first, until their response has ended. */
  const queue: Pending[] = [];
  let receiving: Pending | undefined;
  /** Answering by itself (413, 502): the client's bytes are read and dropped until its message ends. */
  let speaking = false;
  let tunnel = false;
  /** The client sent what is not HTTP/1.1: it got a 400 and nothing more is read. */
  let unparsable = false;
  let lingerTimer: NodeJS.Timeout | undefined;
  let failure: Error | undefined;
  let clientGone = false;
  responses.bodiless = () => queue[0]?.method === 'HEAD';
  const budget = new RecordBudget((reason) => ctx.giveUp(reason));

  const finish = (ex: Pending) => {
    if (ex.done) return;
    ex.done = true;
    if (!ex.response) return void (ex.seq !== undefined && ctx.abandon(ex.seq));
    budget.release(); // past the limit the tape has stopped: recording this only counts it as not written
    const r = ex.response;
    const raw = Buffer.concat(r.chunks);
    ctx.record({
      method: ex.method,
      path: ex.path,
      requestBody: Buffer.concat(ex.body).toString('utf8'),
      requestHeaders: ex.headers,
      status: r.status,
      contentType: r.headers['content-type'],
      sse: r.sse,
      response: r.sse ? r.messages.map((m) => `${m}\n`).join('') : isUtf8(raw) ? raw.toString('utf8') : raw.toString('latin1'),
      session: ex.session ?? ctx.sessionOf(r.headers['mcp-session-id']),
      after: ex.after,
      seq: ex.seq,
      stream: ex,
    });
  };

  /** Answers the client itself and closes once its current message has been read (or after LINGER_MS). */
  const speak = (status: string, body: string) => {
    if (speaking) return;
    speaking = true;
    client.write(`HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    if (!receiving) return void client.end();
    // A half-open client that keeps sending is closed outright once the linger is over.
    lingerTimer = setTimeout(() => client.destroy(), LINGER_MS).unref();
  };
  const refuse = (ex: Pending) => {
    const at = queue.indexOf(ex);
    if (at >= 0) queue.splice(at, 1);
    if (ex.seq !== undefined && !ex.done) {
      ex.done = true;
      ctx.abandon(ex.seq);
    }
    upstream.destroy();
    if (ex.response) return void client.destroy(); // the server already answered part of it
    speak('413 Payload Too Large', bodyTooLargeReply(ctx.limit));
  };
  const unreachable = (message: string) => {
    ctx.report(`tapedeck record: upstream ${describeEndpoint(up)} failed: ${message}\n`);
    speak('502 Bad Gateway', `${JSON.stringify({ kind: 'error', message: `tapedeck: upstream unreachable: ${message}` })}\n`);
  };

  const onRequestEvent = (e: ParseEvent): boolean => {
    if (e.type === 'head') {
      const { headers } = e.head;
      const method = e.head.method ?? 'GET';
      const ex: Pending = { method, path: e.head.path ?? '/', headers, body: [], size: 0 };
      receiving = ex;
      if (speaking) return true;
      if (failure) return void unreachable(failure.message), true;
      const declared = Number(headers['content-length']);
      if (Number.isFinite(declared) && declared > ctx.limit) return void refuse(ex), true;
      Object.assign(ex, ctx.onRequest(headers, method));
      queue.push(ex);
      upstream.write(headBytes(e.head, up));
      return true;
    }
    if (e.type === 'body') {
      if (speaking) return true;
      if (e.data && receiving) {
        receiving.size += e.data.length;
        if (receiving.size > ctx.limit) return void refuse(receiving), true;
        receiving.body.push(e.data);
      }
      upstream.write(e.raw);
      return true;
    }
    if (e.type === 'end') {
      const done = receiving;
      receiving = undefined;
      if (speaking) return void client.end(), false;
      if (done && done.size > 0) ctx.requestBody?.(done.path, done.seq, Buffer.concat(done.body).toString('utf8'));
      if (e.raw) upstream.write(e.raw);
    }
    return true;
  };

  client.on('data', (chunk: Buffer) => {
    if (unparsable) return;
    if (tunnel) {
      if (!upstream.write(chunk)) client.pause();
      return;
    }
    let events: ParseEvent[];
    try {
      events = requests.push(chunk);
    } catch {
      // Not HTTP/1.1 we can follow: answer as Node's server would, and stop (what
      // follows is not read; the upstream closing is not an upstream failure).
      unparsable = true;
      speaking = true;
      upstream.destroy();
      return void client.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    }
    upstream.cork();
    for (const e of events) if (!onRequestEvent(e)) break;
    upstream.uncork();
    // A slow reader slows its writer down instead of filling this process's memory.
    if (upstream.writableNeedDrain) client.pause();
  });
  upstream.on('drain', () => client.resume());
  client.on('drain', () => upstream.resume());

  const onResponseEvent = (e: ParseEvent) => {
    const ex = queue[0];
    if (e.type === 'tunnel') tunnel = true;
    if (!ex) return;
    if (e.type === 'head') {
      const status = e.head.status ?? 0;
      if (status >= 100 && status < 200 && status !== 101) return; // interim; the final head follows
      const sse = isSse(e.head.headers['content-type'] as string | undefined);
      ex.response = { status, headers: e.head.headers, sse, parser: sse ? new SseParser() : undefined, messages: [], chunks: [] };
      if (status === 101) finish(queue.shift()!);
    } else if (e.type === 'body' && e.data && ex.response) {
      if (!budget.hold(e.data.length)) {
        ex.response.chunks = [];
        ex.response.messages = [];
        ex.response.parser = undefined;
      } else if (ex.response.parser) {
        for (const m of ex.response.parser.push(e.data)) {
          ctx.sseEvent?.(ex, m.event, m.data, ex.response.messages.length === 0);
          ex.response.messages.push(m.data);
        }
      }
      else ex.response.chunks.push(e.data);
    } else if (e.type === 'end' && ex.response) {
      finish(queue.shift()!);
    }
  };

  upstream.on('data', (chunk: Buffer) => {
    if (!client.write(chunk)) upstream.pause(); // forward first: parsing is for the tape
    if (tunnel) return;
    try {
      for (const e of responses.push(chunk)) onResponseEvent(e);
    } catch {
      // A response we cannot follow still reaches the client, but the tape stops: a gap would
      // leave later requests answered out of their order.
      tunnel = true;
      ctx.giveUp('a response that is not HTTP/1.1 tapedeck can follow cannot be recorded');
    }
  });
  upstream.on('error', (err) => (failure = err));
  upstream.once('close', () => {
    if (!tunnel) for (const e of responses.eof().events) onResponseEvent(e);
    const started = queue.some((ex) => ex.response);
    const waiting = queue.some((ex) => !ex.response);
    for (const ex of queue.splice(0)) finish(ex);
    if (clientGone || speaking) return;
    if (started) return void (failure ? client.destroy() : client.end());
    if (waiting || receiving) return unreachable(failure?.message ?? 'socket hang up');
    if (!failure) client.end(); // else the client's request, when it comes, is answered 502
  });

  client.on('end', () => {
    if (speaking) client.end();
    else if (!upstream.destroyed) upstream.end();
  });
  client.on('error', () => {});
  client.once('close', () => {
    clientGone = true;
    clearTimeout(lingerTimer);
    upstream.destroy();
    for (const ex of queue.splice(0)) finish(ex);
  });
  return () => {
    for (const ex of queue.splice(0)) finish(ex);
    client.destroy();
    upstream.destroy();
  };
}

/** The request head as it goes upstream: the server's own Host, the base path, no proxy credentials. */
function headBytes(head: MessageHead, up: Endpoint & { base?: string }): Buffer {
  const [method, target, version] = head.startLine.split(' ');
  const path = up.kind === 'tcp' ? `${up.base ?? ''}${target}` : target;
  const lines = [`${method} ${path} ${version ?? 'HTTP/1.1'}`, `Host: ${up.kind === 'tcp' ? `${up.host}:${up.port}` : 'localhost'}`];
  for (const line of head.lines) {
    const name = line.slice(0, line.indexOf(':')).trim().toLowerCase();
    if (!DROPPED.has(name)) lines.push(line);
  }
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}
