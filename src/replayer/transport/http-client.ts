import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { SseParser, isSse } from '../../plumbing/net/http-wire.js';
import type { Endpoint } from '../../plumbing/net/endpoint.js';
import type { WireNote } from '../../tape/protocol/wire.js';
/** A pair as the transport drivers send it: secrets restored, its wire note read. */
export interface WirePair {
  send: string;
  expected: string;
  wire?: WireNote;
}

export interface LiveOutcome {
  actual: string;
  status?: number;
  /** Why no complete response came; the replay stops there. */
  failure?: CallFailure | { failure: 'exited'; message: string; partial: string };
}


export interface HttpCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as text; for an SSE stream, each event's data as one line (as the recorder stores it). */
  body: string;
  sse: boolean;
}

export type CallFailure = { failure: 'timeout' | 'refused' | 'reset'; message: string; partial: string };

/**
 * One request on its own connection (seed 000: one request, one response
 * stream, connection closed), read to its end. Never rejects: a timeout or
 * a dead server is a value the replayer reports as drift.
 */
export function httpCall(to: Endpoint, call: HttpCall, timeoutMs: number, onMessage?: (data: string) => void): Promise<HttpAnswer | CallFailure> {
  const stream = openHttp(to, call);
  if (onMessage) stream.onEvent(onMessage); // an SSE answer's messages as they come (a server request to answer)
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stream.abort();
      resolve({ failure: 'timeout', message: `no complete response within ${timeoutMs} ms`, partial: stream.partial() });
    }, timeoutMs);
    void stream.done.then((r) => {
      clearTimeout(timer);
      resolve(r);
    });
  });
}

export interface OpenStream {
  /** Headers arrived (or the call failed). */
  headers: Promise<{ status: number; headers: IncomingHttpHeaders } | CallFailure>;
  done: Promise<HttpAnswer | CallFailure>;
  /** How many SSE events have arrived so far, and a way to hear of each (its data) as it comes. */
  events(): number;
  onEvent(fn: (data: string) => void): void;
  partial(): string;
  abort(): void;
}

/** A request whose response may stream for a long time (MCP's GET stream): read as it comes, ended by abort(). */
export function openHttp(to: Endpoint, call: HttpCall): OpenStream {
  const chunks: Buffer[] = [];
  const messages: string[] = [];
  const listeners: Array<(data: string) => void> = [];
  let sse = false;
  let status = 0;
  let resHeaders: IncomingHttpHeaders = {};
  let settle: (v: HttpAnswer | CallFailure) => void = () => {};
  let settleHeaders: (v: { status: number; headers: IncomingHttpHeaders } | CallFailure) => void = () => {};
  const done = new Promise<HttpAnswer | CallFailure>((r) => (settle = r));
  const headers = new Promise<{ status: number; headers: IncomingHttpHeaders } | CallFailure>((r) => (settleHeaders = r));
  const body = () => (sse ? messages.map((m) => `${m}\n`).join('') : Buffer.concat(chunks).toString('utf8'));
  const answer = (): HttpAnswer => ({ status, headers: resHeaders, body: body(), sse });
  const target = to.kind === 'unix' ? { socketPath: to.path } : { host: to.host, port: to.port };
  const reqHeaders: Record<string, string> = { ...call.headers, connection: 'close' };
  if (call.body !== undefined) reqHeaders['content-length'] = String(Buffer.byteLength(call.body));
  let aborted = false;
  const req = httpRequest({ ...target, method: call.method, path: call.path, headers: reqHeaders, agent: false }, (res) => {
    status = res.statusCode ?? 0;
    resHeaders = res.headers;
    sse = isSse(res.headers['content-type']);
    settleHeaders({ status, headers: resHeaders });
    const parser = sse ? new SseParser() : undefined;
    res.on('data', (c: Buffer) => {
      if (!parser) return void chunks.push(c);
      for (const e of parser.push(c)) {
        messages.push(e.data);
        for (const fn of listeners) fn(e.data);
      }
    });
    res.once('end', () => settle(answer()));
    res.once('error', () => settle(aborted ? answer() : { failure: 'reset', message: 'the connection broke before the response ended', partial: body() }));
    res.once('close', () => settle(aborted || res.complete ? answer() : { failure: 'reset', message: 'the connection broke before the response ended', partial: body() }));
  });
  req.once('error', (err: NodeJS.ErrnoException) => {
    if (aborted) return settle(answer());
    const refused = err.code === 'ECONNREFUSED' || err.code === 'ENOENT';
    const f: CallFailure = { failure: refused ? 'refused' : 'reset', message: refused ? 'the server refused the connection' : `the connection failed: ${err.message}`, partial: body() };
    settleHeaders(f);
    settle(f);
  });
  req.end(call.body);
  return {
    headers,
    done,
    events: () => messages.length,
    onEvent: (fn) => listeners.push(fn),
    partial: body,
    abort: () => {
      aborted = true;
      req.destroy();
      settle(answer());
    },
  };
}

export function isFailure(v: HttpAnswer | CallFailure | { status: number }): v is CallFailure {
  return 'failure' in v;
}
