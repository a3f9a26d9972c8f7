import { StreamRedactor } from '../../core/text/stream-redact.js';
import { redact } from '../../core/text/redact.js';
import { siblingTempPath, sweepStaleTemps } from '../../core/files/temp-files.js';
import { isUtf8 } from 'node:buffer';
import { closeSync, fsync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { BYTES_EVENT, type CastFormat, type CastTheme } from './events.js';
import { decodePiece, Utf8Chunker, type Utf8Piece } from './utf8.js';
import { jsonStringMaxBytes, writeJsonStringBytes } from '../protocol/json-bytes.js';

export interface CastWriterOptions {
  /** Variables whose values are stored as {{tapedeck.env.NAME}} in output, input and header. */
  redactEnv?: readonly string[];
  /** Where their values come from (default process.env). */
  redactFrom?: NodeJS.ProcessEnv;
  format?: CastFormat;
  cols: number;
  rows: number;
  termType?: string;
  /** Unix seconds; default now. */
  timestamp?: number;
  title?: string;
  /** The recorded argv (stored as a display string and as exact argv). */
  argv?: string[];
  /** The command as a display string, for tapes that have no argv (asciinema's). */
  command?: string;
  idleTimeLimit?: number;
  env?: Record<string, string>;
  /** Working directory of the recording (kept under the "tapedeck" key; replays run there). */
  cwd?: string;
  /** That directory relative to the tape's. */
  cwdFromTape?: string;
  theme?: CastTheme;
  /** v3 only: term.version. */
  termVersion?: string;
  /** v3 only. */
  tags?: string[];
}

/** Quotes argv for display only (a tape's command is never run by a shell). */
export function displayCommand(argv: string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

export function castHeaderLine(options: CastWriterOptions): Record<string, unknown> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const optional: Record<string, unknown> = {};
  if (options.title !== undefined) optional.title = options.title;
  if (options.argv) optional.command = displayCommand(options.argv);
  else if (options.command !== undefined) optional.command = options.command;
  if (options.idleTimeLimit !== undefined) optional.idle_time_limit = options.idleTimeLimit;
  if (options.env) optional.env = options.env;
  const ext: Record<string, unknown> = {};
  if (options.argv) ext.argv = options.argv;
  if (options.cwd) ext.cwd = options.cwd;
  if (options.cwdFromTape) ext.cwdFromTape = options.cwdFromTape;
  if (Object.keys(ext).length > 0) optional.tapedeck = ext;
  if ((options.format ?? 'v3') === 'v2') {
    // v2 has no term.type: TERM lives in env, where asciinema 2 puts it.
    const env = options.termType ? { ...options.env, TERM: options.termType } : options.env;
    return { version: 2, width: options.cols, height: options.rows, timestamp, ...optional, ...(env ? { env } : {}), ...(options.theme ? { theme: options.theme } : {}) };
  }
  const term: Record<string, unknown> = { cols: options.cols, rows: options.rows };
  if (options.termType) term.type = options.termType;
  if (options.termVersion) term.version = options.termVersion;
  if (options.theme) term.theme = options.theme;
  return { version: 3, term, timestamp, ...optional, ...(options.tags ? { tags: options.tags } : {}) };
}

/** Encoded lines are written once this many bytes could be pending. */
const PENDING_BYTES = 512 * 1024;

/** Microsecond precision, as asciinema writes it. */
function roundTime(t: number): number {
  return Math.round(t * 1e6) / 1e6;
}

/**
 * Streams a cast to disk as events happen, into a temporary sibling that is
 * renamed over the target on close(): a crash or abort() never leaves a
 * half-written tape under the real name.
 */
export class CastWriter {
  readonly format: CastFormat;
  private readonly tmpPath: string;
  private fd: number | undefined;
  /** Absolute time of the last written event, as the reader will reconstruct it. */
  private lastTime = 0;
  private readonly decoders = { o: new Utf8Chunker(), i: new Utf8Chunker() };
  /** Secrets out of the bytes before they are decoded or written (a value split across chunks too). */
  private readonly redactors: { o: StreamRedactor; i: StreamRedactor };
  /** Lines not yet written, encoded (a join of the lines and one encode of it cost more than the JSON). */
  private pending = Buffer.allocUnsafe(PENDING_BYTES);
  private pendingLength = 0;
  /** The first write error (disk full...): the tape is dropped, close() reports it. */
  failure?: Error;

  constructor(readonly path: string, options: CastWriterOptions) {
    this.format = options.format ?? 'v3';
    sweepStaleTemps(dirname(path)); // a recording killed with SIGKILL left its temp file here
    this.tmpPath = siblingTempPath(path);
    try {
      this.fd = openSync(this.tmpPath, 'w', 0o644);
    } catch (err) {
      throw new TapedeckError('STORAGE_WRITE_ERROR', `cannot write: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
        location: { file: path },
        cause: err,
      });
    }
    const names = options.redactEnv ?? [];
    const from = options.redactFrom ?? process.env;
    this.redactors = { o: new StreamRedactor(names, from, true), i: new StreamRedactor(names, from, true) };
    const header = JSON.stringify(castHeaderLine(options));
    this.writeLine(names.length > 0 ? redact(header, names, from) : header);
  }

  private writeLine(line: string): void {
    // Batch small events into one write; a long recording must not buffer unboundedly.
    // A UTF-8 line takes at most 3 bytes per UTF-16 unit, plus its "\n".
    if (this.pendingLength + 3 * line.length + 1 > this.pending.length) {
      this.flushLines();
      if (3 * line.length + 1 > this.pending.length) {
        this.writeBytes(Buffer.from(`${line}\n`, 'utf8'));
        return;
      }
    }
    this.pendingLength += this.pending.write(line, this.pendingLength, 'utf8');
    this.pending[this.pendingLength++] = 0x0a;
  }

  private flushLines(): void {
    if (this.pendingLength === 0) return;
    const length = this.pendingLength;
    this.pendingLength = 0;
    this.writeBytes(this.pending.subarray(0, length));
  }

  private writeBytes(buf: Buffer): void {
    if (this.fd === undefined) return;
    try {
      let off = 0;
      while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
    } catch (err) {
      // Events arrive from the terminal's data callbacks: never throw there. Drop the
      // half-written temp file now; close() turns the failure into an error for the caller.
      this.failure = err as Error;
      this.abort();
    }
  }

  private event(time: number, code: string, data: string): void {
    if (this.failure) return;
    this.writeLine(`${this.eventStart(time, code)}${JSON.stringify(data)}]`);
  }

  /** `[stamp,"code",` as JSON.stringify([stamp, code, data]) starts (a finite number prints the same), and the clock moved on. */
  private eventStart(time: number, code: string): string {
    if (this.fd === undefined) throw new Error('cast writer already closed');
    const t = roundTime(Math.max(time, this.lastTime));
    const stamp = this.format === 'v3' ? roundTime(t - this.lastTime) : t;
    this.lastTime = t;
    return `[${stamp},${JSON.stringify(code)},`;
  }

  /** An event whose data is `bytes`, valid UTF-8: escaped into the pending lines as they are, never decoded to a string. */
  private utf8Event(time: number, code: string, bytes: Buffer): void {
    if (this.failure) return;
    // Room for the longest escaping, so a chunk too big for that (rare) goes the string way instead.
    const most = jsonStringMaxBytes(bytes.length) + 64;
    if (most > this.pending.length) return this.event(time, code, bytes.toString('utf8'));
    const start = this.eventStart(time, code);
    if (this.pendingLength + most > this.pending.length) this.flushLines();
    let o = this.pendingLength + this.pending.write(start, this.pendingLength, 'latin1');
    o = writeJsonStringBytes(this.pending, o, bytes);
    this.pending[o++] = 0x5d; // ]
    this.pending[o++] = 0x0a;
    this.pendingLength = o;
  }

  /** Output or input bytes, redacted, split at whole characters: valid UTF-8 is written as it is, anything else also as exact bytes. */
  private bytesEvent(time: number, code: 'o' | 'i', bytes: Buffer): void {
    const body = this.decoders[code].take(this.redactors[code].push(bytes));
    if (!body) return;
    if (isUtf8(body)) this.utf8Event(time, code, body);
    else this.piece(time, code, decodePiece(body));
  }

  private piece(time: number, code: 'o' | 'i', piece: Utf8Piece | undefined): void {
    if (!piece) return;
    this.event(time, code, piece.text);
    if (piece.exact) this.event(time, BYTES_EVENT, piece.exact.toString('base64'));
  }

  /** Program output at `time` seconds since start. */
  output(time: number, bytes: Buffer): void {
    this.bytesEvent(time, 'o', bytes);
  }

  /** Bytes sent to the program. */
  input(time: number, bytes: Buffer): void {
    this.bytesEvent(time, 'i', bytes);
  }

  marker(time: number, name: string): void {
    this.releaseHeld(time);
    this.event(time, 'm', name);
  }

  resize(time: number, cols: number, rows: number): void {
    this.releaseHeld(time);
    this.event(time, 'r', `${cols}x${rows}`);
  }

  /** Bytes held back as a possible start of a secret go out before any other event. */
  private releaseHeld(time: number): void {
    for (const code of ['o', 'i'] as const) {
      const held = this.redactors[code].flush();
      if (held.length > 0) this.piece(time, code, this.decoders[code].push(held));
    }
  }

  exit(time: number, status: number): void {
    this.endStreams(time);
    this.event(time, 'x', String(status));
  }

  private endStreams(time: number): void {
    this.releaseHeld(time);
    this.piece(time, 'o', this.decoders.o.flush());
    this.piece(time, 'i', this.decoders.i.flush());
  }

  /** Finishes the tape: flushes, fsyncs and renames it into place. */
  close(): void {
    const fd = this.finishWriting();
    if (fd !== undefined) this.settle(fd, () => fsyncSync(fd));
  }

  /**
   * close(), with the fsync waited for off the main thread: the recorder ends
   * the terminal's session meanwhile instead of after it.
   */
  async closeAsync(): Promise<void> {
    const fd = this.finishWriting();
    if (fd === undefined) return;
    const error = await new Promise<Error | null>((resolve) => fsync(fd, resolve));
    this.settle(fd, () => {
      if (error) throw error;
    });
  }

  /** Writes out what is pending and hands over the fd (undefined: closed already). */
  private finishWriting(): number | undefined {
    this.throwFailure();
    if (this.fd === undefined) return undefined;
    this.endStreams(this.lastTime);
    this.flushLines();
    this.throwFailure(); // the last write failed: the temp file is gone already
    const fd = this.fd;
    this.fd = undefined;
    return fd;
  }

  private throwFailure(): void {
    if (!this.failure) return;
    const e = this.failure as NodeJS.ErrnoException;
    throw new TapedeckError('STORAGE_WRITE_ERROR', `cannot write: ${e.code === 'ENOSPC' ? 'no space left on device' : e.code ?? e.message}; the tape was not written`, {
      location: { file: this.path },
      cause: e,
    });
  }

  /** Closes the synced temp file and renames it into place; on any error removes it. */
  private settle(fd: number, sync: () => void): void {
    try {
      try {
        sync();
      } finally {
        closeSync(fd);
      }
      renameSync(this.tmpPath, this.path);
    } catch (err) {
      rmSync(this.tmpPath, { force: true });
      throw new TapedeckError('STORAGE_WRITE_ERROR', `cannot write: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
        location: { file: this.path },
        cause: err,
      });
    }
  }

  /** Drops the tape: nothing appears under the target name. */
  abort(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    rmSync(this.tmpPath, { force: true });
  }
}
