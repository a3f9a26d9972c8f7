import { isUtf8 } from 'node:buffer';
import { TapedeckError, ioError } from '../../core/diagnostics/errors.js';
import { eachNumberedLine, numberedLinesOf, type NumberedLine } from '../../core/text/lines.js';
import { warn } from '../../core/diagnostics/warn.js';
import { limit, limitError, tooDeep } from '../../core/config/limits.js';
import { checkNotesAgainst, readNotes, type NotesExchange, type TapeNotes } from './notes.js';
import { checkWireNote, type WireNote } from './wire.js';
import { scanTapeBytes, type TapeBytes } from './tape-bytes.js';

/**
 * One recorded exchange of a protocol tape, seed 000's recorder format:
 * `{"request":"<raw request line>","response":"<raw response bytes>"}`.
 */
export interface TapePair {
  /** The request line, whitespace-trimmed, as the client sent it. */
  request: string;
  /** Every byte the server wrote for it, decoded as UTF-8. */
  response: string;
  /** The exact response bytes when they are not valid UTF-8 (kept in `response_base64`). */
  responseBytes?: Buffer;
  /** Where the pair is in its tape. */
  line: number;
  byteStart: number;
  byteEnd: number;
  /** The line as stored, to rewrite untouched pairs byte for byte. */
  raw: string;
  /** How it travelled when not over stdio (the tape's notes file, or an old tape's inline `wire` key). */
  wire?: WireNote;
  /** Kept only in the notes file (`line`, `byteStart`, `byteEnd` and `raw` are the notes line's): not an agent request. */
  inNotes?: boolean;
  /** A recording run (a fresh server) starts at this pair (the notes say so: a run appended to the tape). */
  runStart?: boolean;
  /** That run was single-shot: one request, stdin closed. */
  singleShot?: boolean;
  /** The run this pair belongs to spoke Content-Length framing (from its notes' run start). */
  framing?: string;
}

export interface ProtocolTape {
  path: string;
  pairs: TapePair[];
  /** A last line cut short (a full disk, a kill mid-write), skipped with a warning. */
  partialLine?: number;
}

/** The JSON line for one pair: seed 000 byte for byte (serde_json and JSON.stringify escape alike). */
export function formatPair(request: string, response: Buffer | string): string {
  if (typeof response === 'string') return JSON.stringify({ request, response });
  const text = response.toString('utf8');
  if (isUtf8(response)) return JSON.stringify({ request, response: text });
  // JSON strings cannot carry raw bytes: keep a readable lossy copy for seed-000
  // readers plus the exact bytes, which tapedeck prefers when present.
  return JSON.stringify({ request, response: text, response_base64: response.toString('base64') });
}

/**
 * The line that accepts a new response: other keys kept; response_base64
 * rewritten from the new bytes when they are not UTF-8, else dropped as stale.
 */
export function replaceResponse(rawLine: string, request: string, response: string | Buffer): string {
  const obj = JSON.parse(rawLine) as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => k !== 'request' && k !== 'response' && k !== 'response_base64');
  const pair = formatPair(request, response);
  if (keys.length === 0) return pair;
  const out: Record<string, unknown> = JSON.parse(pair) as Record<string, unknown>;
  for (const k of keys) out[k] = obj[k];
  return JSON.stringify(out);
}

/** Reads and validates a whole tape; a bad line is a TapedeckError naming file:line. */
export async function readProtocolTape(path: string): Promise<ProtocolTape> {
  const reader = new TapeLines(path, undefined, readNotes(path));
  try {
    await eachNumberedLine(path, (l) => reader.add(l));
  } catch (err) {
    if (err instanceof TapedeckError) throw err;
    throw ioError(path, err);
  }
  return reader.finish();
}

/** A tape read for replay: `count` pairs, each decoded from the tape's bytes when asked for. */
export interface PairStore {
  readonly count: number;
  /** Pair i (a new object each call; keep it only as long as needed). */
  pair(i: number): TapePair;
  /** The tape, its `pairs` built when first read. */
  readonly tape: ProtocolTape;
  /** Closes the tape file until a pair is read again (tape-bytes.ts). */
  release(): void;
}

/**
 * Reads and validates a whole tape as readProtocolTape does (the same errors,
 * in the same order), handing each pair to `onPair` as it is read, and keeps
 * only each line's offsets: a pair is read back from the file when asked for
 * (tape-bytes.ts), so a 50,000-pair tape is neither 50,000 objects and 150,000
 * strings nor its bytes in memory for the replay's whole run.
 */
export async function readPairStore(path: string, onPair: (pair: TapePair, index: number) => void): Promise<PairStore> {
  const notes = readNotes(path);
  const reader = new TapeLines(path, onPair, notes);
  let bytes: TapeBytes;
  try {
    bytes = await scanTapeBytes(path, (l) => reader.add(l));
  } catch (err) {
    if (err instanceof TapedeckError) throw err;
    throw ioError(path, err);
  }
  let tape: ProtocolTape;
  try {
    tape = reader.finish();
  } catch (err) {
    bytes.release();
    throw err;
  }
  return new BytesPairStore(tape.path, bytes, reader.offsets, tape.partialLine, notes?.bytes, reader.extras);
}

class BytesPairStore implements PairStore {
  readonly count: number;
  private built?: TapePair[];
  private view?: ProtocolTape;

  constructor(
    private readonly path: string,
    private readonly bytes: TapeBytes,
    private readonly where: PairOffsets,
    private readonly partialLine: number | undefined,
    /** The notes file's bytes, for the pairs kept there. */
    private readonly notesBytes: Buffer | undefined,
    /** What the notes add to a pair, by its index. */
    private readonly extras: Map<number, PairExtras>,
  ) {
    this.count = where.count;
  }

  pair(i: number): TapePair {
    const { line, start, end } = this.where.at(i);
    const extra = this.extras.get(i);
    const text = extra?.inNotes ? this.notesBytes!.toString('utf8', start, end) : this.bytes.text(start, end);
    const obj = JSON.parse(text) as { request: string; response: string; response_base64?: string; wire?: WireNote };
    const responseBytes = obj.response_base64 === undefined ? undefined : Buffer.from(obj.response_base64, 'base64');
    const pair: TapePair = { request: obj.request, response: obj.response, responseBytes, line, byteStart: start, byteEnd: end, raw: text };
    if (obj.wire) pair.wire = obj.wire;
    return extra ? Object.assign(pair, extra) : pair;
  }

  release(): void {
    this.bytes.release();
  }

  get tape(): ProtocolTape {
    if (this.view) return this.view;
    const view = { path: this.path, ...(this.partialLine !== undefined ? { partialLine: this.partialLine } : {}) };
    const build = () => {
      try {
        return Array.from({ length: this.count }, (_, i) => this.pair(i));
      } finally {
        this.release();
      }
    };
    return (this.view = Object.defineProperty(view, 'pairs', {
      enumerable: true,
      get: () => (this.built ??= build()),
    }) as ProtocolTape);
  }
}

/**
 * Each pair's line number and byte range, 16 bytes a pair, appended in blocks:
 * no array doubles (a 50,000-pair tape's offsets are 0.8 MB, not 1.5 MB plus a
 * copy while growing).
 */
class PairOffsets {
  private readonly starts: Float64Array[] = [];
  /** Line number and byte length, two to a pair. */
  private readonly linesAndLengths: Uint32Array[] = [];
  count = 0;

  push(line: number, start: number, end: number): void {
    const b = Math.floor(this.count / BLOCK);
    const k = this.count % BLOCK;
    if (k === 0) {
      this.starts.push(new Float64Array(BLOCK));
      this.linesAndLengths.push(new Uint32Array(2 * BLOCK));
    }
    this.starts[b][k] = start;
    this.linesAndLengths[b][2 * k] = line;
    this.linesAndLengths[b][2 * k + 1] = end - start;
    this.count++;
  }

  at(i: number): { line: number; start: number; end: number } {
    const b = Math.floor(i / BLOCK);
    const k = i % BLOCK;
    const start = this.starts[b][k];
    return { line: this.linesAndLengths[b][2 * k], start, end: start + this.linesAndLengths[b][2 * k + 1] };
  }
}

const BLOCK = 4096;

/** The same over bytes already read (the rewrite re-reads the tape under its lock). */
export function parseProtocolTape(path: string, bytes: Buffer, options: { quiet?: boolean } = {}): ProtocolTape {
  const reader = new TapeLines(path, undefined, readNotes(path));
  for (const l of numberedLinesOf(bytes)) reader.add(l);
  return reader.finish(options.quiet);
}

type PairExtras = Pick<TapePair, 'wire' | 'inNotes' | 'runStart' | 'singleShot' | 'framing'>;

/**
 * Lines to pairs. A last line without its newline that does not parse is what
 * a write cut short leaves: the complete pairs before it are kept, and the
 * line is named in a warning instead of failing the whole tape. With notes,
 * the pairs kept only there are put in their places, and each tape pair gets
 * its note.
 */
class TapeLines {
  private pairs: TapePair[] = [];
  private count = 0;
  /** Pairs read from the tape itself. */
  private tapeCount = 0;
  private nextExchange = 0;
  private readonly requests = new Map<number, string>();
  private partialLine?: number;
  /** Read once per tape, not once per pair. */
  private readonly maxDepth = limit('maxJsonDepth');
  /** With onPair: each pair's line and byte range (the pairs themselves are handed over, not kept). */
  readonly offsets = new PairOffsets();
  /** What the notes add to a pair, by its index (with onPair). */
  readonly extras = new Map<number, PairExtras>();
  constructor(
    private readonly path: string,
    private readonly onPair?: (pair: TapePair, index: number) => void,
    private readonly notes?: TapeNotes,
  ) {}

  add(l: NumberedLine): void {
    if (l.text.trim() === '') return;
    if (!l.terminated) {
      let pair: TapePair;
      try {
        pair = parsePairLine(this.path, l, this.maxDepth);
      } catch (err) {
        if (!(err instanceof TapedeckError) || err.code !== 'TD2001') throw err;
        this.partialLine = l.line;
        return;
      }
      this.keep(pair);
      return;
    }
    this.keep(parsePairLine(this.path, l, this.maxDepth));
  }

  private keep(pair: TapePair): void {
    const notes = this.notes;
    if (notes) {
      const t = this.tapeCount++;
      while (this.nextExchange < notes.exchanges.length && notes.exchanges[this.nextExchange].before <= t) this.keepExchange(notes.exchanges[this.nextExchange++]);
      const wire = notes.wire.get(t);
      if (wire) {
        pair.wire = wire;
        this.requests.set(t, pair.request);
      }
      const run = notes.runStarts.get(t);
      if (run) {
        pair.runStart = true;
        if (run.singleShot) pair.singleShot = true;
        if (run.framing) pair.framing = run.framing;
      }
      if (wire || run) this.extras.set(this.count, { ...(wire ? { wire } : {}), ...(run ? { runStart: true, ...(run.singleShot ? { singleShot: true } : {}), ...(run.framing ? { framing: run.framing } : {}) } : {}) });
    }
    this.store(pair);
  }

  private keepExchange(ex: NotesExchange): void {
    const pair: TapePair = { request: ex.request, response: ex.response, responseBytes: ex.responseBytes, line: ex.line, byteStart: ex.byteStart, byteEnd: ex.byteEnd, raw: ex.raw, wire: ex.wire, inNotes: true };
    this.extras.set(this.count, { wire: ex.wire, inNotes: true });
    this.store(pair);
  }

  private store(pair: TapePair): void {
    if (this.onPair) {
      this.offsets.push(pair.line, pair.byteStart, pair.byteEnd);
      this.onPair(pair, this.count);
    } else this.pairs.push(pair);
    this.count++;
  }

  finish(quiet = false): ProtocolTape {
    const notes = this.notes;
    if (notes) {
      checkNotesAgainst(notes, this.tapeCount, (t) => this.requests.get(t) ?? '');
      while (this.nextExchange < notes.exchanges.length) this.keepExchange(notes.exchanges[this.nextExchange++]);
    }
    if (this.partialLine !== undefined && !quiet) {
      warn(`${this.path}:${this.partialLine}: the last line is incomplete (a write cut short?); it is skipped and the ${this.count} complete pair(s) before it are used`);
    }
    return { path: this.path, pairs: this.pairs, ...(this.partialLine !== undefined ? { partialLine: this.partialLine } : {}) };
  }
}

function parsePairLine(file: string, { line, text, byteStart, byteEnd }: NumberedLine, maxDepth: number): TapePair {
  const bad = (what: string) =>
    new TapedeckError('TD2001', `not a valid tape pair: ${what}`, { location: { file, line } });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw bad(`invalid JSON (${(err as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad('expected a JSON object with "request" and "response"');
  const obj = value as Record<string, unknown>;
  if (!('request' in obj)) throw bad('missing "request"');
  if (typeof obj.request !== 'string') throw bad(`"request" must be a string, got ${jsonType(obj.request)}`);
  if (!('response' in obj)) throw bad('missing "response"');
  if (typeof obj.response !== 'string') throw bad(`"response" must be a string, got ${jsonType(obj.response)}`);
  const deep = deepMessage(obj.request, maxDepth) ? 'request' : deepMessage(obj.response, maxDepth) ? 'response' : undefined;
  if (deep) throw limitError('maxJsonDepth', `the ${deep} has a JSON message nested more than ${maxDepth} levels deep`, { file, line });
  let responseBytes: Buffer | undefined;
  if (obj.response_base64 !== undefined) {
    if (typeof obj.response_base64 !== 'string') throw bad('"response_base64" must be a string');
    responseBytes = Buffer.from(obj.response_base64, 'base64');
  }
  const pair: TapePair = { request: obj.request, response: obj.response, responseBytes, line, byteStart, byteEnd, raw: text };
  // An old tape's inline note (tapes written now keep it in the notes file).
  if (obj.wire !== undefined) pair.wire = checkWireNote(obj.wire, { file, line });
  return pair;
}

/** A JSON message line (one starting with { or [) nested past the limit: nothing could compare it. */
function deepMessage(text: string, maxDepth: number): boolean {
  if (text.length < maxDepth) return false;
  for (const m of text.split('\n')) {
    const t = m.trimStart();
    if ((t.startsWith('{') || t.startsWith('[')) && tooDeep(m)) return true;
  }
  return false;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
