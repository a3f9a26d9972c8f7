import type { IncomingHttpHeaders } from 'node:http';

/**
 * An incremental HTTP/1.1 message parser for the recording relay: it reads a
 * copy of the bytes that already went through, so it never delays them, and
 * tells where each message's head and body are (Content-Length, chunked, or
 * until the connection closes). Just enough of RFC 9112 to record exchanges.
 */
export interface MessageHead {
  /** Requests: method and request-target as sent. */
  method?: string;
  path?: string;
  /** Responses. */
  status?: number;
  headers: IncomingHttpHeaders;
  /** The head's header lines, as sent (without the start line and the blank line). */
  lines: string[];
  startLine: string;
}

export type ParseEvent =
  | { type: 'head'; head: MessageHead }
  /** `data`: decoded body bytes; `raw`: the bytes of the stream they came in (chunk framing included). */
  | { type: 'body'; data?: Buffer; raw: Buffer }
  | { type: 'end'; raw?: Buffer }
  /** The connection stopped being HTTP (101 Switching Protocols): the rest is an opaque tunnel. */
  | { type: 'tunnel' };

/** Headers Node keeps the first of when repeated; others are joined with ", " (as IncomingMessage does). */
const SINGLE = new Set(['age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since', 'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after', 'server', 'user-agent']);

const MAX_HEAD = 64 * 1024;

/** Bytes that are not HTTP/1.1 this parser can follow (a head too long, a bad chunk size). */
class HttpParseError extends Error {}

const EMPTY = Buffer.alloc(0);

function parseHead(text: string, kind: 'request' | 'response'): MessageHead {
  const all = text.split('\r\n');
  const startLine = all[0];
  const lines = all.slice(1).filter((l) => l !== '');
  const headers: IncomingHttpHeaders = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const had = headers[name];
    if (name === 'set-cookie') headers[name] = [...((had as string[] | undefined) ?? []), value];
    else if (had === undefined) headers[name] = value;
    else if (!SINGLE.has(name)) headers[name] = `${had as string}, ${value}`;
  }
  if (kind === 'request') {
    const [method, path] = startLine.split(' ');
    return { method, path, headers, lines, startLine };
  }
  return { status: Number(startLine.split(' ')[1]), headers, lines, startLine };
}

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-crlf' | 'trailer' | 'close' | 'tunnel';

export class HttpMessageParser {
  private state: State = 'head';
  private pending: Buffer = EMPTY;
  private remaining = 0;
  /** Responses: whether the current one answers a HEAD (no body whatever its headers say). */
  bodiless: () => boolean = () => false;

  constructor(private readonly kind: 'request' | 'response') {}

  push(chunk: Buffer): ParseEvent[] {
    const out: ParseEvent[] = [];
    let buf = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = EMPTY;
    let at = 0;
    while (at < buf.length) {
      if (this.state === 'tunnel') break;
      if (this.state === 'head') {
        const end = buf.indexOf('\r\n\r\n', at);
        if (end === -1) {
          if (buf.length - at > MAX_HEAD) throw new HttpParseError(`head over ${MAX_HEAD} bytes`);
          break;
        }
        // Blank lines before a request line are allowed (RFC 9112 2.2).
        const text = buf.toString('latin1', at, end).replace(/^(\r\n)+/, '');
        at = end + 4;
        const head = parseHead(text, this.kind);
        out.push({ type: 'head', head });
        this.startBody(head, out);
        continue;
      }
      if (this.state === 'length' || this.state === 'chunk-data') {
        const take = Math.min(this.remaining, buf.length - at);
        const piece = buf.subarray(at, at + take);
        at += take;
        this.remaining -= take;
        out.push({ type: 'body', data: piece, raw: piece });
        if (this.remaining === 0) {
          if (this.state === 'length') this.endMessage(out);
          else this.state = 'chunk-crlf';
        }
        continue;
      }
      if (this.state === 'close') {
        const piece = buf.subarray(at);
        at = buf.length;
        out.push({ type: 'body', data: piece, raw: piece });
        continue;
      }
      // Line-based states: a chunk size, the CRLF after chunk data, trailer lines.
      const nl = buf.indexOf('\n', at);
      if (nl === -1) {
        if (buf.length - at > MAX_HEAD) throw new HttpParseError(`chunk line over ${MAX_HEAD} bytes`);
        break;
      }
      const raw = buf.subarray(at, nl + 1);
      const line = buf.toString('latin1', at, nl).replace(/\r$/, '');
      at = nl + 1;
      if (this.state === 'chunk-size') {
        const size = parseInt(line.split(';')[0].trim(), 16);
        if (!Number.isFinite(size) || size < 0) throw new HttpParseError(`bad chunk size ${JSON.stringify(line)}`);
        out.push({ type: 'body', raw });
        if (size === 0) this.state = 'trailer';
        else {
          this.remaining = size;
          this.state = 'chunk-data';
        }
      } else if (this.state === 'chunk-crlf') {
        out.push({ type: 'body', raw });
        this.state = 'chunk-size';
      } else if (line === '') {
        this.endMessage(out, raw);
      } else {
        out.push({ type: 'body', raw });
      }
    }
    if (at < buf.length && this.state !== 'tunnel') this.pending = Buffer.from(buf.subarray(at));
    return out;
  }

  /** The connection closed: a body read until close ends here. Returns whether a message was cut short. */
  eof(): { events: ParseEvent[]; cut: boolean } {
    if (this.state === 'close') {
      const events: ParseEvent[] = [];
      this.endMessage(events);
      return { events, cut: false };
    }
    return { events: [], cut: this.state !== 'head' && this.state !== 'tunnel' };
  }

  private startBody(head: MessageHead, out: ParseEvent[]): void {
    const te = String(head.headers['transfer-encoding'] ?? '').toLowerCase();
    const length = Number(head.headers['content-length']);
    if (this.kind === 'response') {
      const status = head.status ?? 0;
      if (status === 101) {
        this.state = 'tunnel';
        out.push({ type: 'tunnel' });
        return;
      }
      if (status >= 100 && status < 200) return; // interim: the final head follows
      if (this.bodiless() || status === 204 || status === 304) return this.endMessage(out);
    }
    if (/(^|,)\s*chunked\s*$/.test(te)) {
      this.state = 'chunk-size';
    } else if (head.headers['content-length'] !== undefined && Number.isFinite(length)) {
      if (length === 0) return this.endMessage(out);
      this.remaining = length;
      this.state = 'length';
    } else if (this.kind === 'response') {
      this.state = 'close';
    } else {
      this.endMessage(out);
    }
  }

  private endMessage(out: ParseEvent[], raw?: Buffer): void {
    this.state = 'head';
    out.push(raw ? { type: 'end', raw } : { type: 'end' });
  }
}
