import { createReadStream } from 'node:fs';

/**
 * Splits a byte stream into lines, each keeping its "\n" so that joining the
 * lines gives back every byte. Works on Buffers, so multi-byte UTF-8 split
 * across chunks is never decoded half-way.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingLength = 0;

  /** Feeds a chunk; returns the complete lines it finished. */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    let nl = chunk.indexOf(0x0a, start);
    while (nl !== -1) {
      const piece = chunk.subarray(start, nl + 1);
      if (this.pendingLength > 0) {
        lines.push(Buffer.concat([...this.pending, piece], this.pendingLength + piece.length));
        this.pending = [];
        this.pendingLength = 0;
      } else {
        lines.push(piece);
      }
      start = nl + 1;
      nl = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.pending.push(rest);
      this.pendingLength += rest.length;
    }
    return lines;
  }

  /** Bytes received after the last newline. */
  get partialLength(): number {
    return this.pendingLength;
  }

  /** The unterminated tail, left in place (to show what a stuck response had sent). */
  peek(): Buffer {
    return Buffer.concat(this.pending, this.pendingLength);
  }

  /** Takes the unterminated tail (at end of stream or on an idle boundary). */
  flush(): Buffer | undefined {
    if (this.pendingLength === 0) return undefined;
    const tail = Buffer.concat(this.pending, this.pendingLength);
    this.pending = [];
    this.pendingLength = 0;
    return tail;
  }
}

export interface NumberedLine {
  /** 1-indexed line number. */
  line: number;
  /** The line without its terminator ("\n" or "\r\n"). */
  text: string;
  /** Half-open byte range of the line (terminator excluded) in the file. */
  byteStart: number;
  byteEnd: number;
}

/** Streams a file's lines with their numbers and byte offsets, never reading it whole. */
export async function* readNumberedLines(path: string): AsyncGenerator<NumberedLine> {
  const splitter = new LineSplitter();
  let line = 0;
  let offset = 0;
  const emit = (buf: Buffer): NumberedLine => {
    line += 1;
    const start = offset;
    offset += buf.length;
    let end = buf.length;
    if (end > 0 && buf[end - 1] === 0x0a) end -= 1;
    if (end > 0 && buf[end - 1] === 0x0d) end -= 1;
    return { line, text: buf.toString('utf8', 0, end), byteStart: start, byteEnd: start + end };
  };
  for await (const chunk of createReadStream(path)) {
    for (const buf of splitter.push(chunk as Buffer)) yield emit(buf);
  }
  const tail = splitter.flush();
  if (tail) yield emit(tail);
}
