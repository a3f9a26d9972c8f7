import { closeSync, fstatSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { formatPair } from '../../tape/protocol/tape.js';
import { exchangeNoteLine, notesPath, pairNoteLine, runStartLine } from '../../tape/protocol/notes.js';
import type { WireNote } from '../../tape/protocol/wire.js';
import { limit } from '../../core/config/limits.js';

/**
 * Appends pairs to a protocol tape, best-effort: the live session matters more
 * than the recording, so a failed open or write is reported once and never
 * thrown (seed 000: "writes that fail log to stderr but never halt").
 */
export class TapeAppender {
  private fd: number | undefined;
  private reported = false;
  written = 0;
  failed = 0;
  firstError?: string;
  /** Where the last pair's line starts, to amend it with late server output. */
  private last?: { offset: number; request: string; response: Buffer | string };
  /** The tape's size as this appender left it (counted, not asked for per pair). */
  private size = 0;
  /** Pairs in the tape (counted when a note needs the number). */
  private pairs?: number;
  private notesFd?: number;
  /** This run's start is noted (appended to a tape with pairs, or single-shot). */
  private runNoted = false;
  /** The run speaks Content-Length framing (LSP, DAP): noted with its start. */
  private framing?: string;
  /** TAPEDECK_MAX_LINE_BYTES, read once (the environment is slow to ask, and asked per pair otherwise). */
  private readonly maxLineBytes = limit('maxLineBytes');

  constructor(
    readonly path: string,
    private readonly report: (message: string) => void,
    /** The run is single-shot (one request, stdin closed): noted so replay drives it so. */
    private readonly options: { singleShot?: boolean } = {},
  ) {
    try {
      this.fd = openSync(path, 'a');
      this.size = fstatSync(this.fd).size;
      if (this.size === 0) this.pairs = 0;
    } catch (err) {
      this.fail(err);
    }
  }

  /**
   * One pair: the tape gets seed 000's two-key line; how it travelled when not
   * over stdio (`wire`) goes to the notes file beside it (tape/protocol/notes.ts).
   * `notesOnly`: not an agent request (a body-less HTTP request, a 401 from the
   * transport), kept in the notes only, never as a tape line.
   */
  append(request: string, response: Buffer | string, wire?: WireNote, notesOnly = false): void {
    if (this.fd === undefined) {
      this.failed++;
      return;
    }
    if (notesOnly && wire) {
      const line = formatPair(request, response);
      if (this.note(exchangeNoteLine(this.pairCount() + 1, line, wire))) this.written++;
      else this.failed++;
      return;
    }
    const line = this.lineOf(request, response);
    if (!line) return;
    try {
      this.last = { offset: this.size, request, response };
      // Synchronous: each pair is on disk before the next is taken, so a crash
      // of either process loses at most the exchange in flight.
      writeWhole(this.fd, line.text, line.bytes);
      this.size += line.bytes;
      this.written++;
      if (this.pairs !== undefined) this.pairs++;
      const n = this.pairCount(); // this pair's number
      if (!this.runNoted) {
        // Seed 000 appends each run and ends it at end of input, with no line saying so: the notes say where.
        this.runNoted = true;
        if (n > 1 || this.options.singleShot || this.framing) this.note(runStartLine(n, this.options.singleShot ?? false, this.framing));
      }
      if (wire) this.note(pairNoteLine(n, request, wire));
    } catch (err) {
      // A full disk or a file size limit cut the line short: take the part back so
      // the tape ends with a complete pair, and record no more (a gap would make a
      // tape whose later requests were never answered in that order).
      this.failed++;
      this.fail(err);
      try {
        ftruncateSync(this.fd, this.size); // the size after the last complete pair
      } catch {
        /* the reader still skips a cut last line, with a warning */
      }
      this.close();
    }
  }

  /**
   * Adds bytes the server wrote after the last pair was written (a late
   * notification before it exited) to that pair, by rewriting the tape's last
   * line: pairs go to disk as soon as they are complete, and late output still
   * lands where the recorder documents it.
   */
  amendLast(extra: Buffer): boolean {
    if (this.fd === undefined || !this.last || extra.length === 0) return false;
    const { offset, request } = this.last;
    const response = Buffer.concat([typeof this.last.response === 'string' ? Buffer.from(this.last.response, 'utf8') : this.last.response, extra]);
    // Too long amended: the pair stays as it was written, and the tape stops there.
    if (!this.lineOf(request, response)) return false;
    try {
      ftruncateSync(this.fd, offset);
      this.size = offset;
      this.written--;
      if (this.pairs !== undefined) this.pairs--;
      this.append(request, response);
      return true;
    } catch (err) {
      this.fail(err);
      return false;
    }
  }

  /**
   * A pair that cannot be recorded (a response over the tape line limit): said
   * once, and the tape records no more, as after a failed write (a gap would
   * leave later requests answered out of their order).
   */
  giveUp(reason: string): void {
    if (this.fd === undefined) return;
    this.firstError ??= 'LIMIT';
    if (!this.reported) {
      this.reported = true;
      this.report(`tapedeck: ${reason}; the tape ${this.path} keeps the ${this.written} complete pair(s) before it; the session goes on unrecorded\n`);
    }
    this.close();
  }

  /**
   * The pair's tape line, or undefined when it is longer than a reader takes
   * (TAPEDECK_MAX_LINE_BYTES): escaping can make the line several times the
   * response (a non-UTF-8 byte is 2 bytes, base64 4/3, a quote 2), so the
   * line itself is measured; the tape then records no more (giveUp).
   */
  private lineOf(request: string, response: Buffer | string): { text: string; bytes: number } | undefined {
    // Kept a string (written as one, measured without encoding it): a Buffer per pair cost the tap's round trip.
    const text = `${formatPair(request, response)}\n`;
    const bytes = Buffer.byteLength(text, 'utf8');
    const max = this.maxLineBytes;
    if (bytes - 1 <= max) return { text, bytes };
    this.failed++;
    this.giveUp(`a pair whose tape line is ${bytes - 1} bytes, over the ${max}-byte limit (raise it with TAPEDECK_MAX_LINE_BYTES) cannot be recorded`);
    return undefined;
  }

  /** The run's framing, found from the client's first bytes (before its first pair). */
  setFraming(framing: string): void {
    this.framing = framing;
  }

  /** A pair the recorder saw but did not keep (the tape had stopped): counted as not written. */
  notRecorded(): void {
    this.failed++;
  }

  /** The pairs the tape holds now: counted from the file once, then kept. */
  private pairCount(): number {
    if (this.pairs === undefined) {
      let n = 0;
      try {
        const text = readFileSync(this.path, 'utf8');
        for (const line of text.split('\n')) if (line.trim() !== '') n++;
      } catch {
        /* unreadable: the notes number from 0 */
      }
      this.pairs = n;
    }
    return this.pairs;
  }

  /** One line to the notes file (best-effort, as the tape: a failure is reported once). */
  private note(line: string): boolean {
    try {
      this.notesFd ??= openSync(notesPath(this.path), 'a');
      const buf = Buffer.from(`${line}\n`, 'utf8');
      let off = 0;
      while (off < buf.length) off += writeSync(this.notesFd, buf, off, buf.length - off);
      return true;
    } catch (err) {
      this.fail(err);
      return false;
    }
  }

  close(): void {
    if (this.notesFd !== undefined) {
      try {
        closeSync(this.notesFd);
      } catch (err) {
        this.fail(err);
      }
      this.notesFd = undefined;
    }
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch (err) {
      this.fail(err);
    }
    this.fd = undefined;
  }

  private fail(err: unknown): void {
    const e = err as NodeJS.ErrnoException;
    this.firstError ??= e?.code ?? e?.message ?? String(err);
    if (this.reported) return;
    this.reported = true;
    this.report(`tapedeck: cannot write the tape ${this.path}: ${e?.message ?? String(err)}; the tape keeps the ${this.written} complete pair(s) before it; the session goes on unrecorded\n`);
  }
}

/**
 * Writes all of `text` (`bytes` long in UTF-8) at the file's end. A short write (a
 * file size limit reached mid-line) goes on from where it stopped, so the next
 * write's error is the one reported.
 */
function writeWhole(fd: number, text: string, bytes: number): void {
  const written = writeSync(fd, text, null, 'utf8');
  if (written === bytes) return;
  const buf = Buffer.from(text, 'utf8');
  for (let off = written; off < bytes; ) off += writeSync(fd, buf, off, bytes - off);
}

/** A client's last line, ended without its newline, is a whole request only when it is a whole JSON message. */
export function wholeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
