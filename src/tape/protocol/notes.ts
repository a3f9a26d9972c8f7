import { readFileSync } from 'node:fs';
import { TapedeckError, ioError } from '../../core/diagnostics/errors.js';
import { lazyPackage } from '../../core/lazy-package.js';
import { numberedLinesOf } from '../../core/text/lines.js';
import { checkWireNote, type WireNote } from './wire.js';

// Only a tape with notes hashes requests: a replay of one without does not load node:crypto (0.6 MB of RSS).
const crypto = lazyPackage<typeof import('node:crypto')>('node:crypto');

/**
 * The notes file beside a protocol tape (`<tape>.notes`): what tapedeck needs
 * to replay a tape that seed 000's format has no room for, kept out of the
 * tape so that every tape line is exactly `{"request":...,"response":...}` as
 * seed 000's recorder writes it, on every transport. A seed-000 reader opens
 * the tape and never sees it. One JSON object per line, in recording order:
 *
 *   {"pair":3,"sha":"9f86d081884c","wire":{"transport":"http",...}}
 *      how tape pair 3 (1-based, counting pairs) travelled; `sha` is the start
 *      of the SHA-256 of its request, so a tape edited without its notes is
 *      refused instead of replayed with the wrong notes
 *   {"before":4,"request":"GET /v1/agent/version","response":"...","wire":{...}}
 *      an exchange that is not an agent request (a body-less HTTP request, or
 *      an answer the transport gave instead of the agent: 401), kept only here,
 *      replayed before tape pair 4 (count + 1: after the last)
 *   {"run_start":6,"single_shot":true}
 *      a recording run (a fresh server) starts at tape pair 6: a run appended
 *      to the tape, which seed 000 ends at end of input without a halt line;
 *      `single_shot` when that run was one request with stdin closed;
 *      `"framing":"content-length"` when it spoke LSP/DAP framing (its pairs'
 *      requests and response lines are the messages' JSON bodies)
 */
export interface TapeNotes {
  path: string;
  bytes: Buffer;
  /** 0-based tape pair index → how it travelled. */
  wire: Map<number, WireNote>;
  /** 0-based tape pair index → a run starts there (`framing`: content-length, LSP/DAP). */
  runStarts: Map<number, { singleShot: boolean; framing?: string }>;
  /** Exchanges kept only in the notes, each before the 0-based tape pair `before` (count: after the last). */
  exchanges: NotesExchange[];
  /** Checked once the tape's pairs are known. */
  checks: Array<{ index: number; line: number; sha?: string; kind: 'pair' | 'run_start' | 'before' }>;
}

export interface NotesExchange {
  before: number;
  line: number;
  byteStart: number;
  byteEnd: number;
  request: string;
  response: string;
  responseBytes?: Buffer;
  wire: WireNote;
  raw: string;
}

/** The notes file of a tape (a pending `<tape>.new` shares its tape's notes). */
export function notesPath(tapePath: string): string {
  return `${tapePath.replace(/\.new$/, '')}.notes`;
}

/** The start of the SHA-256 of a request, as a notes line stores it. */
export function requestSha(request: string): string {
  return crypto().createHash('sha256').update(request).digest('hex').slice(0, 12);
}

/** Reads and validates the notes of a tape; undefined when it has none. A bad line is exit 2 naming it. */
export function readNotes(tapePath: string): TapeNotes | undefined {
  const path = notesPath(tapePath);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioError(path, err);
  }
  return parseNotes(path, bytes);
}

export function parseNotes(path: string, bytes: Buffer): TapeNotes {
  const notes: TapeNotes = { path, bytes, wire: new Map(), runStarts: new Map(), exchanges: [], checks: [] };
  for (const l of numberedLinesOf(bytes)) {
    if (l.text.trim() === '') continue;
    const where = { file: path, line: l.line };
    const bad = (what: string) => new TapedeckError('TD2001', `not a valid notes line: ${what}`, { location: where });
    let v: unknown;
    try {
      v = JSON.parse(l.text);
    } catch (err) {
      throw bad(`invalid JSON (${(err as Error).message})`);
    }
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad('expected a JSON object');
    const o = v as Record<string, unknown>;
    const kinds = (['pair', 'before', 'run_start'] as const).filter((k) => k in o);
    if (kinds.length !== 1) throw bad('expected exactly one of "pair", "before" or "run_start"');
    const kind = kinds[0];
    const n = o[kind];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw bad(`"${kind}" must be a pair number from 1, got ${JSON.stringify(n)}`);
    if (kind === 'pair') {
      if (o.sha !== undefined && typeof o.sha !== 'string') throw bad('"sha" must be a string');
      if (notes.wire.has(n - 1)) throw bad(`pair ${n} has a note already`);
      notes.wire.set(n - 1, checkWireNote(o.wire, where));
      notes.checks.push({ index: n - 1, line: l.line, sha: o.sha as string | undefined, kind });
    } else if (kind === 'run_start') {
      if (o.single_shot !== undefined && typeof o.single_shot !== 'boolean') throw bad('"single_shot" must be true or false');
      if (o.framing !== undefined && o.framing !== 'content-length') throw bad(`"framing" must be "content-length", got ${JSON.stringify(o.framing)}`);
      notes.runStarts.set(n - 1, o.framing === undefined ? { singleShot: o.single_shot === true } : { singleShot: o.single_shot === true, framing: o.framing });
      notes.checks.push({ index: n - 1, line: l.line, kind });
    } else {
      if (typeof o.request !== 'string') throw bad('"request" must be a string');
      if (typeof o.response !== 'string') throw bad('"response" must be a string');
      if (o.response_base64 !== undefined && typeof o.response_base64 !== 'string') throw bad('"response_base64" must be a string');
      const wire = checkWireNote(o.wire, where);
      notes.exchanges.push({
        before: n - 1,
        line: l.line,
        byteStart: l.byteStart,
        byteEnd: l.byteEnd,
        request: o.request,
        response: o.response,
        responseBytes: o.response_base64 === undefined ? undefined : Buffer.from(o.response_base64 as string, 'base64'),
        wire,
        raw: l.text,
      });
      notes.checks.push({ index: n - 1, line: l.line, kind });
    }
  }
  return notes;
}

/** Once the tape is read: every note points at a pair the tape has, with the request it was written for. */
export function checkNotesAgainst(notes: TapeNotes, count: number, requestOf: (index: number) => string): void {
  for (const c of notes.checks) {
    const max = c.kind === 'before' ? count : count - 1;
    const where = { file: notes.path, line: c.line };
    if (c.index > max) {
      throw new TapedeckError('TD2001', `not a valid notes line: it names pair ${c.index + 1}, but the tape has ${count} pair(s) (edited without its notes?)`, { location: where });
    }
    if (c.sha !== undefined && requestSha(requestOf(c.index)) !== c.sha) {
      throw new TapedeckError('TD2001', `not a valid notes line: pair ${c.index + 1} of the tape is not the request this note was written for (edited without its notes?)`, { location: where });
    }
  }
}

/** A notes line: how tape pair `pair` (1-based) travelled. */
export function pairNoteLine(pair: number, request: string, wire: WireNote): string {
  return JSON.stringify({ pair, sha: requestSha(request), wire });
}

/** A notes line: an exchange kept only in the notes, before tape pair `before` (1-based). */
export function exchangeNoteLine(before: number, pairLine: string, wire: WireNote): string {
  return `{"before":${before},${pairLine.slice(1, -1)},"wire":${JSON.stringify(wire)}}`;
}

/** A notes line: a recording run starts at tape pair `pair` (1-based). */
export function runStartLine(pair: number, singleShot: boolean, framing?: string): string {
  return JSON.stringify({ run_start: pair, ...(singleShot ? { single_shot: true } : {}), ...(framing ? { framing } : {}) });
}
