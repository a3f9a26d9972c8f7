import { closeSync, openSync, writeSync } from 'node:fs';
import { formatPair } from '../tape/protocol-tape.js';
import { type WireNote, withWire } from '../tape/wire.js';

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

  constructor(
    readonly path: string,
    private readonly report: (message: string) => void,
  ) {
    try {
      this.fd = openSync(path, 'a');
    } catch (err) {
      this.fail(err);
    }
  }

  /** `wire` notes how the pair travelled when it was not stdio. */
  append(request: string, response: Buffer | string, wire?: WireNote): void {
    const line = `${withWire(formatPair(request, response), wire)}\n`;
    if (this.fd === undefined) {
      this.failed++;
      return;
    }
    try {
      // Synchronous: each pair is on disk before the next is taken, so a crash
      // of either process loses at most the exchange in flight.
      const buf = Buffer.from(line, 'utf8');
      let off = 0;
      while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
      this.written++;
    } catch (err) {
      this.failed++;
      this.fail(err);
    }
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
    this.report(`tapedeck: cannot write the tape ${this.path}: ${e?.message ?? String(err)}; the session goes on unrecorded\n`);
  }
}
