import { close, closeSync, fstat, fstatSync, open, openSync, read, readSync, type Stats } from 'node:fs';
import { TapedeckError, ioError } from '../../core/diagnostics/errors.js';
import { refuseSpecialFile } from '../../core/files/special-file.js';
import { limit } from '../../core/config/limits.js';
import { NumberedChunks, type NumberedLine } from '../../core/text/lines.js';

/**
 * Where a replay reads its tape's pairs back from. A tape file is not held in
 * memory: it is scanned once in 64 KB reads (each line handed on as it is
 * split), and each pair's bytes are read again from the file, by the offsets
 * noted in that scan, when the replay needs them. The scan's descriptor stays
 * open until release() (a replay releases it when done), so a tape another
 * writer replaces meanwhile (a parallel `replay --update`: an atomic rename)
 * is still read as it was scanned. At most MAX_HELD scanned files stay open at
 * once (a run prepares all its tapes before replaying any); the others, and a
 * released one, are opened again by path at their next read. A file changed
 * in place since the scan (size, modification time), or another file at its
 * path when it is opened again, is refused (TD2006, exit 2) rather than read
 * at stale offsets.
 * A stream given as the tape (/dev/stdin, a shell's `<(cmd)`) cannot be read
 * twice: its bytes are kept.
 */
export interface TapeBytes {
  /** Bytes [start, end) of the file, decoded as UTF-8. */
  text(start: number, end: number): string;
  /** Closes the file until the next read. */
  release(): void;
}

/** One read, scanning or reading pairs back. */
const CHUNK = 64 * 1024;
/** Scanned tape files kept open from their scan (a descriptor each). */
const MAX_HELD = 256;
let held = 0;

/** Scans the tape at `path`, handing `onLine` each numbered line, and returns where to read its bytes again. */
export async function scanTapeBytes(path: string, onLine: (line: NumberedLine) => void, maxLineBytes = limit('maxLineBytes')): Promise<TapeBytes> {
  refuseSpecialFile(path);
  const lines = new NumberedChunks(path, maxLineBytes, true);
  const fd = await new Promise<number>((resolve, reject) => open(path, 'r', (err, fd) => (err ? reject(err) : resolve(fd))));
  let keep = false;
  try {
    const before = await fstatOf(fd);
    const kept: Buffer[] | undefined = before.isFile() ? undefined : [];
    let length = 0;
    // One buffer for every read: each line is decoded as it is split, and an unfinished one copied out.
    const chunk = Buffer.allocUnsafeSlow(CHUNK);
    for (;;) {
      const n = await new Promise<number>((resolve, reject) => read(fd, chunk, 0, CHUNK, kept ? null : length, (err, n) => (err ? reject(err) : resolve(n))));
      if (n === 0) break;
      for (const l of lines.push(chunk.subarray(0, n))) onLine(l);
      kept?.push(Buffer.from(chunk.subarray(0, n)));
      length += n;
    }
    const last = lines.end();
    if (last) onLine(last);
    if (kept) return new KeptBytes(Buffer.concat(kept, length));
    const after = await fstatOf(fd);
    if (after.size !== length || after.size !== before.size || after.mtimeMs !== before.mtimeMs) throw tapeChanged(path, 'while it was read');
    keep = held < MAX_HELD;
    return new FileBytes(path, after, keep ? fd : undefined);
  } finally {
    if (!keep) await new Promise<void>((resolve) => close(fd, () => resolve()));
  }
}

function fstatOf(fd: number): Promise<Stats> {
  return new Promise((resolve, reject) => fstat(fd, (err, st) => (err ? reject(err) : resolve(st))));
}

function tapeChanged(path: string, when: string): TapedeckError {
  return new TapedeckError('TD2006', `the tape changed ${when} (its pairs are read back from the file as the replay needs them); replay it again`, {
    location: { file: path },
  });
}

/** A file open only while it is read from, so an fd left open by a dropped tape is closed when it is collected. */
const leaked = new FinalizationRegistry<number>((fd) => {
  held--;
  close(fd, () => {});
});

class FileBytes implements TapeBytes {
  private fd?: number;
  private readonly dev: number;
  private readonly ino: number;
  private readonly size: number;
  private readonly mtimeMs: number;
  /**
   * The last 64 KB read, from `windowStart`: a replay reads pairs in order, so
   * one read serves the few hundred pairs after it (a read and a check per pair
   * cost a 50,000-pair replay 0.12–0.2 s of CPU).
   */
  private window?: Buffer;
  private windowStart = 0;
  private windowEnd = 0;

  constructor(
    private readonly path: string,
    scanned: Stats,
    /** The scan's descriptor, kept open. */
    fd?: number,
  ) {
    ({ dev: this.dev, ino: this.ino, size: this.size, mtimeMs: this.mtimeMs } = scanned);
    if (fd !== undefined) this.hold(fd);
  }

  text(start: number, end: number): string {
    if (start < this.windowStart || end > this.windowEnd) {
      if (end - start > CHUNK) return this.read(start, end - start, Buffer.allocUnsafeSlow(end - start)).toString('utf8');
      this.window ??= Buffer.allocUnsafeSlow(CHUNK);
      const n = Math.min(CHUNK, this.size - start);
      this.read(start, n, this.window);
      this.windowStart = start;
      this.windowEnd = start + n;
    }
    return this.window!.toString('utf8', start - this.windowStart, end - this.windowStart);
  }

  /** `n` bytes from `start` into `buf`, checked to be the scanned file's. */
  private read(start: number, n: number, buf: Buffer): Buffer {
    const fd = this.fd ?? this.open();
    try {
      for (let got = 0; got < n; ) {
        const r = readSync(fd, buf, got, n - got, start + got);
        if (r === 0) throw tapeChanged(this.path, 'during the replay');
        got += r;
      }
      // Checked after the read: bytes read before a change are the scanned ones.
      if (!this.same(fstatSync(fd))) throw tapeChanged(this.path, 'during the replay');
    } catch (err) {
      this.windowEnd = 0; // nothing of a failed read is served
      if (err instanceof TapedeckError) throw err;
      throw ioError(this.path, err);
    }
    return buf;
  }

  release(): void {
    this.window = undefined;
    this.windowStart = this.windowEnd = 0;
    if (this.fd === undefined) return;
    leaked.unregister(this);
    const fd = this.fd;
    this.fd = undefined;
    held--;
    closeSync(fd);
  }

  private hold(fd: number): number {
    held++;
    leaked.register(this, fd, this);
    return (this.fd = fd);
  }

  private open(): number {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw tapeChanged(this.path, 'during the replay (it is gone)');
      throw ioError(this.path, err);
    }
    const st = fstatSync(fd);
    if (st.dev !== this.dev || st.ino !== this.ino || !this.same(st)) {
      closeSync(fd);
      throw tapeChanged(this.path, 'during the replay');
    }
    return this.hold(fd);
  }

  private same(st: Stats): boolean {
    return st.size === this.size && st.mtimeMs === this.mtimeMs;
  }
}

class KeptBytes implements TapeBytes {
  constructor(private readonly bytes: Buffer) {}
  text(start: number, end: number): string {
    return this.bytes.toString('utf8', start, end);
  }
  release(): void {}
}
