import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { TapedeckError } from '../../core/diagnostics/errors.js';

/** Request bodies larger than this are refused (413) unless configured otherwise. */
export const DEFAULT_BODY_LIMIT = 8 * 1024 * 1024;

export class BodyTooLarge extends TapedeckError {
  constructor(limit: number) {
    super('TD2010', `request body over the ${limit}-byte limit`);
  }
}

/** Reads a request body, never holding more than `limit` bytes: past it the stream is dropped. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(new BodyTooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge(limit));
      } else chunks.push(c);
    });
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** How long a refused client may go on sending before its connection is closed anyway. */
export const LINGER_MS = 2000;

/** Seed 000's error body for a request body over the limit (the 413's body). */
export function bodyTooLargeReply(limit: number): string {
  return `${JSON.stringify({ kind: 'error', message: `tapedeck: request body over ${limit} bytes` })}\n`;
}

/**
 * Answers a request whose body is over the limit with 413 and seed 000's error
 * body, then closes the connection once the client has stopped sending (or after
 * LINGER_MS). Closing while the client is still mid-body makes the kernel reset
 * the connection, and the client sees EPIPE instead of the 413: the rest of the
 * body is read and dropped meanwhile, never kept.
 */
export function refuseBody(req: IncomingMessage, res: ServerResponse, limit: number): void {
  const body = bodyTooLargeReply(limit);
  if (!res.headersSent) {
    res.writeHead(413, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' });
    res.write(body);
  }
  req.removeAllListeners('data');
  req.resume();
  if (req.readableEnded) return void res.end();
  const close = () => {
    clearTimeout(timer);
    res.end();
  };
  const timer = setTimeout(close, LINGER_MS);
  timer.unref();
  req.once('end', close);
  req.once('close', close);
}

/** The token of an `Authorization: Bearer T` header; the scheme is matched case-insensitively (seed 000). */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const m = /^bearer[ \t]+(\S.*)$/i.exec(headers.authorization ?? '');
  return m ? m[1].trim() : undefined;
}

export function isSse(contentType: string | undefined): boolean {
  return /^text\/event-stream\b/i.test(contentType ?? '');
}

export interface SseEvent {
  event?: string;
  id?: string;
  data: string;
}

/** Splits a text/event-stream into events as bytes arrive (WHATWG EventSource parsing, minus retry). */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event?: string;
  private id?: string;
  private readonly decoder = new TextDecoder();

  push(chunk: Buffer): SseEvent[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    const out: SseEvent[] = [];
    let nl: number;
    while ((nl = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + (this.buffer.startsWith('\r\n', nl) ? 2 : 1));
      if (line === '') {
        // An event without data (MCP's resumability priming event) carries no message.
        if (this.data.join('') !== '') out.push({ event: this.event, id: this.id, data: this.data.join('\n') });
        this.data = [];
        this.event = undefined;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') this.data.push(value);
      else if (field === 'event') this.event = value;
      else if (field === 'id') this.id = value;
    }
    return out;
  }
}

/** One SSE event carrying a JSON-RPC message (the event name MCP uses). */
export function sseEvent(data: string, id?: string): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: message\n${data.split('\n').map((l) => `data: ${l}`).join('\n')}\n\n`;
}

/**
 * Seed 000 batch: the interleaved NDJSON of a batch cut into one response per
 * request, each ending at its {"kind":"done"} line; bytes after the last done
 * stay with the last response.
 */
export function splitAtDone(body: string, count: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const line of body.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
    current += line;
    if (out.length < count - 1 && isDone(line)) {
      out.push(current);
      current = '';
    }
  }
  out.push(current);
  return out;
}

function isDone(line: string): boolean {
  if (!line.includes('"done"')) return false;
  try {
    return (JSON.parse(line) as { kind?: unknown }).kind === 'done';
  } catch {
    return false;
  }
}
