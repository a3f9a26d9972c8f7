import { close, createReadStream, open, read } from 'node:fs';
import { refuseSpecialFile } from '../files/special-file.js';
import { limit, limitError } from '../config/limits.js';

/**
 * Splits a byte stream into lines, each keeping its "\n" so that joining the
 * lines gives back every byte. Works on Buffers, so multi-byte UTF-8 split
 * across chunks is never decoded half-way.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingLength = 0;

  /** `reusesChunks`: the caller reads into the same buffer again, so an unfinished line is copied out of it. */
  constructor(private readonly reusesChunks = false) {}

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
      const rest = this.reusesChunks ? Buffer.from(chunk.subarray(start)) : chunk.subarray(start);
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
  /** False for a last line without "\n" (a write cut short leaves one). */
  terminated: boolean;
}

/** A numbered line not yet decoded: its bytes (terminator and a leading BOM excluded), valid as long as the line is kept. */
export interface RawNumberedLine extends Omit<NumberedLine, 'text'> {
  bytes: Buffer;
}

/** A UTF-8 byte order mark: editors on Windows start files with one; it is not part of line 1. */
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** A raw line with its text decoded. */
function decoded(raw: RawNumberedLine): NumberedLine {
  return { line: raw.line, text: raw.bytes.toString('utf8'), byteStart: raw.byteStart, byteEnd: raw.byteEnd, terminated: raw.terminated };
}

/** Numbers lines as they come: offsets, terminators, and a leading BOM skipped. */
class LineNumberer {
  private line = 0;
  private offset = 0;

  emit(buf: Buffer): NumberedLine {
    return decoded(this.emitRaw(buf));
  }

  emitRaw(buf: Buffer): RawNumberedLine {
    this.line += 1;
    let begin = 0;
    if (this.line === 1 && buf.subarray(0, 3).equals(BOM)) begin = 3;
    const start = this.offset;
    this.offset += buf.length;
    let end = buf.length;
    const terminated = end > 0 && buf[end - 1] === 0x0a;
    if (terminated) end -= 1;
    if (end > begin && buf[end - 1] === 0x0d) end -= 1;
    return { line: this.line, bytes: buf.subarray(begin, end), byteStart: start + begin, byteEnd: start + end, terminated };
  }

  /** The number the line being gathered will get. */
  get next(): number {
    return this.line + 1;
  }
}

/**
 * Numbered lines out of a file's chunks. A line longer than the limit (a tape
 * of /dev/zero, a garbage dump) is an error naming it, before it is gathered.
 * `reusesChunks`: as LineSplitter's (each line is decoded before push returns).
 */
export class NumberedChunks {
  private readonly splitter: LineSplitter;
  private readonly numberer = new LineNumberer();

  constructor(
    private readonly path: string,
    private readonly maxLineBytes: number,
    reusesChunks = false,
  ) {
    this.splitter = new LineSplitter(reusesChunks);
  }

  push(chunk: Buffer): NumberedLine[] {
    return this.split(chunk).map((buf) => this.numberer.emit(buf));
  }

  /** As push, the lines left undecoded (a reader that can use the bytes as they are skips decoding). */
  pushRaw(chunk: Buffer): RawNumberedLine[] {
    return this.split(chunk).map((buf) => this.numberer.emitRaw(buf));
  }

  /** The last line, when the file does not end with a newline. */
  end(): NumberedLine | undefined {
    const tail = this.splitter.flush();
    return tail ? this.numberer.emit(tail) : undefined;
  }

  endRaw(): RawNumberedLine | undefined {
    const tail = this.splitter.flush();
    return tail ? this.numberer.emitRaw(tail) : undefined;
  }

  private split(chunk: Buffer): Buffer[] {
    const lines = this.splitter.push(chunk);
    // Checked before any is numbered: the line named is the next one's number plus those before it here.
    lines.forEach((buf, i) => {
      if (buf.length > this.maxLineBytes + 1) throw this.tooLong(`is ${buf.length} bytes long`, i);
    });
    if (this.splitter.partialLength > this.maxLineBytes) throw this.tooLong(`is longer than ${this.maxLineBytes} bytes`, lines.length);
    return lines;
  }

  private tooLong(what: string, ahead: number): Error {
    const line = this.numberer.next + ahead;
    return limitError('maxLineBytes', `line ${line} ${what}`, { file: this.path, line });
  }
}

/** Streams a file's lines with their numbers and byte offsets, never reading it whole. */
export async function* readNumberedLines(path: string, maxLineBytes = limit('maxLineBytes')): AsyncGenerator<NumberedLine> {
  for await (const batch of readRawLineBatches(path, maxLineBytes)) for (const raw of batch) yield decoded(raw);
}

/**
 * The same undecoded, the lines a chunk of the file finished at a time (an await per chunk, not per
 * line): each line's bytes, which stay valid (every chunk is read into a buffer of its own).
 */
export async function* readRawLineBatches(path: string, maxLineBytes = limit('maxLineBytes')): AsyncGenerator<RawNumberedLine[]> {
  refuseSpecialFile(path);
  const lines = new NumberedChunks(path, maxLineBytes);
  for await (const chunk of createReadStream(path)) {
    const batch = lines.pushRaw(chunk as Buffer);
    if (batch.length > 0) yield batch;
  }
  const last = lines.endRaw();
  if (last) yield [last];
}

/**
 * The same, handing each line to a callback as its chunk is split: no promise
 * per line (a 50,000-pair tape is a few dozen chunks, not 50,000 awaits).
 */
export async function eachNumberedLine(path: string, onLine: (line: NumberedLine) => void, maxLineBytes = limit('maxLineBytes')): Promise<void> {
  refuseSpecialFile(path);
  // fs.read into one buffer, not a read stream: Node's fs streams load fs/promises and readline
  // with them, about 3 ms of a CLI start that reads one tape (bench/cli-start.mjs, serve).
  const lines = new NumberedChunks(path, maxLineBytes, true);
  const fd = await new Promise<number>((resolve, reject) => open(path, 'r', (err, fd) => (err ? reject(err) : resolve(fd))));
  try {
    const chunk = Buffer.allocUnsafeSlow(256 * 1024);
    for (;;) {
      const n = await new Promise<number>((resolve, reject) => read(fd, chunk, 0, chunk.length, null, (err, n) => (err ? reject(err) : resolve(n))));
      if (n === 0) break;
      for (const l of lines.push(chunk.subarray(0, n))) onLine(l);
    }
  } finally {
    await new Promise<void>((resolve) => close(fd, () => resolve()));
  }
  const last = lines.end();
  if (last) onLine(last);
}


/** The same over bytes already in memory (a re-read under a lock). */
export function* numberedLinesOf(buf: Buffer): Generator<NumberedLine> {
  const numberer = new LineNumberer();
  let start = 0;
  while (start < buf.length) {
    const nl = buf.indexOf(0x0a, start);
    const end = nl === -1 ? buf.length : nl + 1;
    yield numberer.emit(buf.subarray(start, end));
    start = end;
  }
}
