import { isUtf8 } from 'node:buffer';
import { TapedeckError, ioError } from '../core/errors.js';
import { eachNumberedLine, numberedLinesOf, type NumberedLine } from '../core/lines.js';
import { warn } from '../core/warn.js';
import { limit, limitError, tooDeep } from '../core/limits.js';

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

/** Reads and validates a whole tape; a bad line is a TapedeckError naming file:line. */
export async function readProtocolTape(path: string): Promise<ProtocolTape> {
  const reader = new TapeLines(path);
  try {
    await eachNumberedLine(path, (l) => reader.add(l));
  } catch (err) {
    if (err instanceof TapedeckError) throw err;
    throw ioError(path, err);
  }
  return reader.finish();
}

/** The same over bytes already read (the rewrite re-reads the tape under its lock). */
export function parseProtocolTape(path: string, bytes: Buffer, options: { quiet?: boolean } = {}): ProtocolTape {
  const reader = new TapeLines(path);
  for (const l of numberedLinesOf(bytes)) reader.add(l);
  return reader.finish(options.quiet);
}

/**
 * Lines to pairs. A last line without its newline that does not parse is what
 * a write cut short leaves: the complete pairs before it are kept, and the
 * line is named in a warning instead of failing the whole tape.
 */
class TapeLines {
  private pairs: TapePair[] = [];
  private partialLine?: number;
  /** Read once per tape, not once per pair. */
  private readonly maxDepth = limit('maxJsonDepth');
  constructor(private readonly path: string) {}

  add(l: NumberedLine): void {
    if (l.text.trim() === '') return;
    if (!l.terminated) {
      try {
        this.pairs.push(parsePairLine(this.path, l, this.maxDepth));
      } catch (err) {
        if (!(err instanceof TapedeckError) || err.code !== 'TD2001') throw err;
        this.partialLine = l.line;
      }
      return;
    }
    this.pairs.push(parsePairLine(this.path, l, this.maxDepth));
  }

  finish(quiet = false): ProtocolTape {
    if (this.partialLine !== undefined && !quiet) {
      warn(`${this.path}:${this.partialLine}: the last line is incomplete (a write cut short?); it is skipped and the ${this.pairs.length} complete pair(s) before it are used`);
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
  // A line that is exactly what formatPair writes (most are) is not kept: it is written again when read.
  const stored = responseBytes === undefined && text === formatPair(obj.request, obj.response) ? undefined : text;
  return new ReadPair(obj.request, obj.response, responseBytes, line, byteStart, byteEnd, stored);
}

/**
 * A pair as read: `raw` is the stored line only when formatPair would not give
 * it back byte for byte (other keys, other escaping, response_base64), so a
 * 50,000-pair tape does not hold every line a second time.
 */
class ReadPair implements TapePair {
  constructor(
    readonly request: string,
    readonly response: string,
    readonly responseBytes: Buffer | undefined,
    readonly line: number,
    readonly byteStart: number,
    readonly byteEnd: number,
    private readonly stored: string | undefined,
  ) {}

  get raw(): string {
    return this.stored ?? formatPair(this.request, this.response);
  }
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
