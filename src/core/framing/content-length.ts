/**
 * Content-Length framing (LSP, DAP): each message is a header block
 * (`Content-Length: N\r\n`, maybe other `Name: value\r\n` lines, then `\r\n`)
 * followed by N bytes of JSON. The tape keeps each message's JSON as one value
 * (a request's text, one line of a response); replay and serve write each back
 * with the canonical `Content-Length: N\r\n\r\n` header, which is what LSP
 * and DAP clients send (other header lines are not kept).
 */
export const CONTENT_LENGTH = 'content-length';

/** The canonical header for a body. */
export function canonicalHeader(body: Buffer | string): string {
  return `Content-Length: ${typeof body === 'string' ? Buffer.byteLength(body) : body.length}\r\n\r\n`;
}

/**
 * One message as bytes: `header` is a recorded header block (its
 * Content-Length is set to the body's length, which a restored secret may
 * change), else the canonical one.
 */
export function frameMessage(body: string, header?: string): Buffer {
  const bytes = Buffer.from(body, 'utf8');
  const head = header ? header.replace(/^(Content-Length:[ \t]*)\d+/im, `$1${bytes.length}`) : canonicalHeader(bytes);
  return Buffer.concat([Buffer.from(head, 'latin1'), bytes]);
}

/** Whether bytes start like a Content-Length framed message (the auto-detection of `record`). */
export function looksContentLength(first: Buffer): boolean {
  return /^Content-(Length|Type):[^\n]*\r?\n/i.test(first.subarray(0, 64).toString('latin1'));
}

export interface FramedMessage {
  header: string;
  body: Buffer;
}

/**
 * Splits a byte stream into messages. `push` returns each complete message's
 * body followed by "\n" (what the line framing calls a line, so the same
 * framer pairs them).
 */
export class ContentLengthSplitter {
  private pending: Buffer = Buffer.alloc(0);
  /** A header block without a Content-Length: the rest of the stream is not framed (kept as a partial). */
  broken?: string;

  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const out: Buffer[] = [];
    for (;;) {
      if (this.broken) break;
      const end = this.pending.indexOf('\r\n\r\n');
      if (end === -1) break;
      const header = this.pending.subarray(0, end + 4).toString('latin1');
      const m = /^Content-Length:[ \t]*(\d+)[ \t]*$/im.exec(header);
      if (!m) {
        this.broken = `a header block without Content-Length: ${JSON.stringify(header.slice(0, 80))}`;
        break;
      }
      const length = Number(m[1]);
      if (this.pending.length < end + 4 + length) break;
      const body = this.pending.subarray(end + 4, end + 4 + length);
      this.pending = this.pending.subarray(end + 4 + length);
      out.push(Buffer.concat([body, NL]));
    }
    return out;
  }

  peek(): Buffer {
    return this.pending;
  }

  flush(): Buffer | undefined {
    const rest = this.pending;
    this.pending = Buffer.alloc(0);
    return rest.length > 0 ? rest : undefined;
  }
}

const NL = Buffer.from('\n');
