import { open, readFile } from 'node:fs/promises';
import { ioError, TapedeckError } from '../../core/diagnostics/errors.js';
import { readRawLineBatches } from '../../core/text/lines.js';
import { warn } from '../../core/diagnostics/warn.js';
import { isRegularFile, spoolToFile } from '../../core/files/temp-files.js';
import { limit, limitError } from '../../core/config/limits.js';
import { BYTES_EVENT, parseResize, type CastEvent, type CastHeader, type CastReading, type CastTheme, type CastVersion } from './events.js';
import { DecodedOutputEvent, OutputLineDecoder } from './output-line.js';
import { refuseSpecialFile } from '../../core/files/special-file.js';

export interface OpenedCast {
  path: string;
  header: CastHeader;
  /** Streams the events in order (v2/v3 line by line; v1 from the parsed object). */
  events(reading?: CastReading): AsyncGenerator<CastEvent>;
}

/** The longest tape time tapedeck reads and writes back exactly (about 31 years). */
const MAX_SECONDS = 1e9;

function malformed(file: string, line: number, message: string): TapedeckError {
  return new TapedeckError('MALFORMED_CAST', message, { location: { file, line } });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function positiveInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0;
}

function stringRecord(v: unknown): Record<string, string> | undefined {
  if (!isObject(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) if (typeof val === 'string') out[k] = val;
  return out;
}

function parseHeader(file: string, raw: Record<string, unknown>): CastHeader {
  const version = raw.version;
  if (version !== 1 && version !== 2 && version !== 3) {
    throw malformed(file, 1, `unsupported asciicast version ${JSON.stringify(version)} (tapedeck reads 1, 2 and 3)`);
  }
  let cols: unknown;
  let rows: unknown;
  let termType: string | undefined;
  const env = stringRecord(raw.env);
  if (version === 3) {
    if (!isObject(raw.term)) throw malformed(file, 1, 'asciicast v3 header needs a "term" object with "cols" and "rows"');
    cols = raw.term.cols;
    rows = raw.term.rows;
    if (typeof raw.term.type === 'string') termType = raw.term.type;
  } else {
    cols = raw.width;
    rows = raw.height;
    termType = env?.TERM;
  }
  const sizeField = version === 3 ? 'term.cols/term.rows' : 'width/height';
  // asciinema records 0x0 when it has no terminal size (e.g. under `script`); players then use 80x24.
  if (cols === 0) cols = 80;
  if (rows === 0) rows = 24;
  if (!positiveInt(cols) || !positiveInt(rows) || cols > 10_000 || rows > 10_000) {
    throw malformed(file, 1, `asciicast v${version} header: ${sizeField} must be whole numbers from 1 to 10000, got ${JSON.stringify(cols)}x${JSON.stringify(rows)}`);
  }
  if (cols * rows > limit('maxScreenCells')) {
    throw limitError('maxScreenCells', `asciicast v${version} header: a ${cols}x${rows} screen has ${cols * rows} cells, more than tapedeck holds`, { file, line: 1 });
  }
  const header: CastHeader = { version: version as CastVersion, cols, rows };
  if (termType) header.termType = termType;
  if (typeof raw.timestamp === 'number') header.timestamp = raw.timestamp;
  if (typeof raw.title === 'string') header.title = raw.title;
  if (typeof raw.command === 'string') header.command = raw.command;
  if (env) header.env = env;
  if (typeof raw.idle_time_limit === 'number') header.idleTimeLimit = raw.idle_time_limit;
  const ext = raw.tapedeck;
  if (isObject(ext) && Array.isArray(ext.argv) && ext.argv.every((a) => typeof a === 'string')) header.argv = ext.argv as string[];
  if (isObject(ext) && typeof ext.cwd === 'string' && ext.cwd !== '') header.cwd = ext.cwd;
  if (isObject(ext) && typeof ext.cwdFromTape === 'string' && ext.cwdFromTape !== '') header.cwdFromTape = ext.cwdFromTape;
  const term = version === 3 && isObject(raw.term) ? raw.term : {};
  const theme = castTheme(version === 3 ? term.theme : raw.theme);
  if (theme) header.theme = theme;
  if (typeof term.version === 'string') header.termVersion = term.version;
  if (Array.isArray(raw.tags) && raw.tags.every((t) => typeof t === 'string')) header.tags = raw.tags as string[];
  return header;
}

/** A theme only when it is complete and well formed (players ignore it otherwise, so do we). */
function castTheme(v: unknown): CastTheme | undefined {
  if (!isObject(v)) return undefined;
  const colour = (c: unknown) => typeof c === 'string' && /^#[0-9a-fA-F]{6}$/.test(c);
  if (!colour(v.fg) || !colour(v.bg) || typeof v.palette !== 'string') return undefined;
  const palette = v.palette.split(':');
  if ((palette.length !== 8 && palette.length !== 16) || !palette.every(colour)) return undefined;
  return { fg: v.fg as string, bg: v.bg as string, palette: v.palette };
}

/** Reads the first line without reading the file whole. */
async function firstLine(source: string, path: string): Promise<string> {
  const fh = await open(source, 'r').catch((err: unknown) => {
    throw ioError(path, err);
  });
  try {
    const chunks: Buffer[] = [];
    const buf = Buffer.alloc(64 * 1024);
    let pos = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos).catch((err: unknown) => {
        throw ioError(path, err);
      });
      if (bytesRead === 0) break;
      const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
      if (nl !== -1) {
        chunks.push(Buffer.from(buf.subarray(0, nl)));
        break;
      }
      chunks.push(Buffer.from(buf.subarray(0, bytesRead)));
      pos += bytesRead;
    }
    return Buffer.concat(chunks).toString('utf8').replace(/^\ufeff/, '').replace(/\r$/, ''); // a BOM is no part of the header
  } finally {
    await fh.close();
  }
}

/**
 * Opens a cast of any version. v2/v3 are streamed (a 50 MB tape is never held
 * in memory); v1 is a single JSON document and is parsed whole.
 */
export async function openCast(path: string): Promise<OpenedCast> {
  // A pipe (`<(cmd)`, /dev/stdin) cannot be read at an offset or twice: read it into a file once.
  refuseSpecialFile(path); // a named pipe in the project would block forever; - and /dev/stdin are spooled
  const source = isRegularFile(path) ? path : await spoolToFile(path, 'cast');
  const first = await firstLine(source, path);
  if (first.trim() === '') throw malformed(path, 1, 'empty file: expected an asciicast header');
  let parsed: unknown;
  try {
    parsed = JSON.parse(first);
  } catch {
    parsed = undefined;
  }
  if (isObject(parsed) && (parsed.version === 2 || parsed.version === 3)) {
    const header = parseHeader(path, parsed);
    return { path, header, events: (reading = {}) => streamEvents(path, header.version as 2 | 3, source, reading) };
  }
  // Not a one-line v2/v3 header: the whole file must be a v1 JSON document.
  const text = (await readFile(source, 'utf8').catch((err: unknown) => {
    throw ioError(path, err);
  })).replace(/^\ufeff/, '');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    if (parsed === undefined) throw malformed(path, 1, `not an asciicast: the first line is not a JSON header (${(err as Error).message})`);
    doc = parsed;
  }
  if (!isObject(doc)) throw malformed(path, 1, 'not an asciicast: expected a JSON object header');
  const header = parseHeader(path, doc);
  if (header.version !== 1) throw malformed(path, 1, `asciicast v${header.version} header must be on the first line by itself`);
  if (!Array.isArray(doc.stdout)) throw malformed(path, 1, 'asciicast v1 needs a "stdout" array of [delay, data] frames');
  const frames = doc.stdout as unknown[];
  return { path, header, events: () => v1Events(path, frames) };
}

async function* v1Events(path: string, frames: unknown[]): AsyncGenerator<CastEvent> {
  let time = 0;
  for (const [i, frame] of frames.entries()) {
    if (!Array.isArray(frame) || typeof frame[0] !== 'number' || !(frame[0] >= 0 && frame[0] <= MAX_SECONDS) || typeof frame[1] !== 'string') {
      throw malformed(path, 1, `asciicast v1 stdout[${i}] must be [delay >= 0 and at most ${MAX_SECONDS}, "data"], got ${JSON.stringify(frame).slice(0, 80)}`);
    }
    time = Math.round((time + frame[0]) * 1e6) / 1e6;
    if (time > MAX_SECONDS) throw malformed(path, 1, `asciicast v1 stdout[${i}]: the tape is longer than ${MAX_SECONDS} seconds`);
    yield { time, code: 'o', data: frame[1], line: 1 };
  }
}

async function* streamEvents(path: string, version: 2 | 3, source: string, reading: CastReading): AsyncGenerator<CastEvent> {
  let time = 0;
  // An "o"/"i" event is held back one line: a tapedeck.bytes event may follow with its exact bytes.
  let held: CastEvent | undefined;
  // A chunk's lines at a time: an await per line cost more than parsing it.
  const batches = readRawLineBatches(source)[Symbol.asyncIterator]();
  const resizes = new ResizeBudget(path);
  const decoded = new OutputLineDecoder(MAX_SECONDS);
  // What a decoded output event's data is, should anything read it (one function for the stream, not one per event).
  const dataOf = (line: number, bytes: Buffer) => parseEventLine(path, line, bytes.toString('utf8'), version).data;
  let header = true;
  // Closed however the reader stops (a position reached, an error): else its file stays open.
  try {
    read: for (;;) {
      const next = await batches.next();
      if (next.done) break;
      for (const { line, bytes, terminated } of next.value) {
        if (header) {
          header = false; // already parsed
          continue;
        }
        const output = reading.outputCodepoints ? decoded.of(bytes) : undefined;
        let parsed: ParsedLine | undefined;
        if (!output) {
          const text = bytes.toString('utf8');
          if (text.trim() === '' || (version === 3 && text.startsWith('#'))) continue;
          parsed = terminated ? parseEventLine(path, line, text, version) : lastEvent(path, line, text, version);
          if (!parsed) break read;
        }
        const stamp = output ? output.time : parsed!.stamp;
        // Round the running sum to the microseconds casts are written in, so it never drifts.
        time = version === 3 ? Math.round((time + stamp) * 1e6) / 1e6 : stamp;
        if (time > MAX_SECONDS) throw malformed(path, line, `the tape is longer than ${MAX_SECONDS} seconds at this event`);
        if (version === 2 && stamp < 0) throw malformed(path, line, `event time must be >= 0, got ${stamp}`);
        const ev: CastEvent = output
          ? new DecodedOutputEvent(time, line, output.codepoints, bytes, dataOf)
          : { time, code: parsed!.code, data: parsed!.data, line };
        if (ev.code === BYTES_EVENT) {
          if (!held) throw malformed(path, line, `"${BYTES_EVENT}" must directly follow an "o" or "i" event`);
          held.bytes = Buffer.from(ev.data, 'base64');
          continue;
        }
        if (held) yield held;
        held = undefined;
        if (ev.code === 'o' || ev.code === 'i') {
          held = ev;
          continue;
        }
        if (ev.code === 'r') resizes.check(ev, line);
        yield ev;
      }
    }
    if (held) yield held;
  } finally {
    await batches.return?.(undefined);
  }
}

type ParsedLine = ReturnType<typeof parseEventLine>;

/** A last line without its newline that does not parse was cut short: the events before it stand. */
function lastEvent(path: string, line: number, text: string, version: 2 | 3): ReturnType<typeof parseEventLine> | undefined {
  try {
    return parseEventLine(path, line, text, version);
  } catch {
    warn(`${path}:${line}: the last line is incomplete (a write cut short?); the events before it are used`);
    return undefined;
  }
}

/**
 * Each resize reallocates the screen: a size past the cell limit is refused,
 * and so is a tape whose resizes together allocate more than the budget (400
 * alternating resizes of a huge screen took 47 s and 3 GB).
 */
class ResizeBudget {
  private cells = 0;
  constructor(private readonly path: string) {}

  check(ev: CastEvent, line: number): void {
    const size = parseResize(ev.data);
    if (!size) throw malformed(this.path, line, `resize event data must be "COLSxROWS" with sizes from 1 to 10000, got ${JSON.stringify(ev.data)}`);
    const cells = size.cols * size.rows;
    if (cells > limit('maxScreenCells')) throw limitError('maxScreenCells', `resize to ${ev.data} is ${cells} cells, more than tapedeck holds`, { file: this.path, line });
    this.cells += cells;
    if (this.cells > limit('maxResizeCells')) {
      throw limitError('maxResizeCells', `the resizes up to this one allocate ${this.cells} screen cells in all, more than the budget`, { file: this.path, line });
    }
  }
}

function parseEventLine(path: string, line: number, text: string, version: 2 | 3): { stamp: number; code: string; data: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw malformed(path, line, `event is not valid JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(value) || value.length < 3) {
    throw malformed(path, line, `event must be [${version === 3 ? 'interval' : 'time'}, code, data], got ${text.slice(0, 80)}`);
  }
  const [stamp, code, data] = value as unknown[];
  // Times past ~31 years are refused: written back at microsecond precision they would overflow to null.
  if (typeof stamp !== 'number' || !Number.isFinite(stamp) || (version === 3 && stamp < 0) || Math.abs(stamp) > MAX_SECONDS) {
    throw malformed(path, line, `event ${version === 3 ? 'interval' : 'time'} must be a number >= 0 and at most ${MAX_SECONDS}, got ${JSON.stringify(stamp)}`);
  }
  if (typeof code !== 'string' || code === '') throw malformed(path, line, `event code must be a non-empty string, got ${JSON.stringify(code)}`);
  if (typeof data !== 'string') {
    // asciinema 3 writes the exit status as a string; accept a number too.
    if (code === 'x' && typeof data === 'number') return { stamp, code, data: String(data) };
    throw malformed(path, line, `event data must be a string, got ${JSON.stringify(data)}`);
  }
  return { stamp, code, data };
}

/** Reads every event into memory (for small casts and tests). */
export async function readCast(path: string): Promise<{ header: CastHeader; events: CastEvent[] }> {
  const cast = await openCast(path);
  const events: CastEvent[] = [];
  for await (const e of cast.events()) events.push(e);
  return { header: cast.header, events };
}
