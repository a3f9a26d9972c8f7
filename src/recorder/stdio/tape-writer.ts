import { closeSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { formatPair } from '../../tape/protocol/tape.js';
import { type WireNote, withWire } from '../../tape/protocol/wire.js';
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
  private last?: { offset: number; request: string; response: Buffer | string; extra?: Record<string, unknown> };
  /** The tape's size as this appender left it (counted, not asked for per pair). */
  private size = 0;

  constructor(
    readonly path: string,
    private readonly report: (message: string) => void,
  ) {
    try {
      this.fd = openSync(path, 'a');
      this.size = fstatSync(this.fd).size;
    } catch (err) {
      this.fail(err);
    }
  }

  /** `wire` notes how the pair travelled when it was not stdio. */
  /** `extra`: keys after the note (the content-length framing's `framing` and `headers`). */
  append(request: string, response: Buffer | string, wire?: WireNote, extra?: Record<string, unknown>): void {
    if (this.fd === undefined) {
      this.failed++;
      return;
    }
    const buf = this.lineOf(request, response, wire, extra);
    if (!buf) return;
    try {
      this.last = { offset: this.size, request, response, extra };
      // Synchronous: each pair is on disk before the next is taken, so a crash
      // of either process loses at most the exchange in flight.
      let off = 0;
      while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
      this.size += buf.length;
      this.written++;
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
    const { offset, request, extra: keys } = this.last;
    const response = Buffer.concat([typeof this.last.response === 'string' ? Buffer.from(this.last.response, 'utf8') : this.last.response, extra]);
    // Too long amended: the pair stays as it was written, and the tape stops there.
    if (!this.lineOf(request, response, undefined, keys)) return false;
    try {
      ftruncateSync(this.fd, offset);
      this.size = offset;
      this.written--;
      this.append(request, response, undefined, keys);
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
  private lineOf(request: string, response: Buffer | string, wire?: WireNote, extra?: Record<string, unknown>): Buffer | undefined {
    let line = withWire(formatPair(request, response), wire);
    if (extra) line = `${line.slice(0, -1)},${JSON.stringify(extra).slice(1)}`;
    const buf = Buffer.from(`${line}\n`, 'utf8');
    const max = limit('maxLineBytes');
    if (buf.length - 1 <= max) return buf;
    this.failed++;
    this.giveUp(`a pair whose tape line is ${buf.length - 1} bytes, over the ${max}-byte limit (raise it with TAPEDECK_MAX_LINE_BYTES) cannot be recorded`);
    return undefined;
  }

  /** A pair the recorder saw but did not keep (the tape had stopped): counted as not written. */
  notRecorded(): void {
    this.failed++;
  }

  close(): void {
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
