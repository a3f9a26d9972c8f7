import { eventBytes, parseResize, type CastHeader, type CastReading } from '../../tape/asciicast/events.js';
import { openCast } from '../../tape/asciicast/read.js';
import { codepointsOf } from '../../core/text/codepoints.js';
import { mayHoldRepeatIn } from '../screen/vt-guard.js';

/**
 * Where to stop: after the named marker, after the `markerIndex`-th marker
 * (1-based: how markers with an empty label, asciinema's marker key, are
 * addressed), or after every event at or before `seconds`.
 */
export type CastPosition = { marker: string } | { markerIndex: number } | { seconds: number } | undefined;

/** What a screen must do to show a cast, in order. Output is batched for xterm. */
export type CastStep =
  | { kind: 'header'; header: CastHeader }
  | { kind: 'output'; bytes: Uint8Array }
  /** Output decoded to code points (CastSplit.codepoints), for Screen.writeCodepointsNow; `repeats`: it may hold a REP. */
  | { kind: 'codepoints'; codepoints: Uint32Array; repeats: boolean }
  | { kind: 'resize'; rows: number; cols: number }
  | { kind: 'exit'; status: number }
  | { kind: 'end'; time: number; markers: string[]; reachedMarker: boolean; /** Tape events applied. */ events: number }
  /** The reader stopped before the event on `line` (CastSplit.until): another reader takes it from there. */
  | { kind: 'handoff'; line: number };

/**
 * Two readers sharing one cast by line: the events on lines before `from`
 * change no screen (their times, markers and counts are still followed, so
 * the end is exact), and the reader stops before the first event on or after
 * the line `until()` names once it names one (read per event, so it may be
 * set while reading). The cast player reads the start of a large cast on its
 * own thread while its worker starts, then hands the rest to the worker.
 */
export interface CastSplit {
  from?: number;
  until?: () => number | undefined;
  /** The last line read and the characters of output so far (the player estimates how far ahead to hand off). */
  progress?: { lines: number; chars: number };
  /** Output batched up to this many bytes (default BATCH_BYTES); the worker sends fewer, larger messages. */
  batchBytes?: number;
  /**
   * Output as code points rather than UTF-8 bytes (the worker decodes for the screen's
   * thread), until an event carries exact bytes that are not UTF-8: from there on bytes,
   * which xterm's own decoder takes as it would from the program.
   */
  codepoints?: boolean;
  /** The array a batch of code points starts in (the worker's free ring slot); one an event outgrows is left for an array of its own. */
  batchArray?: () => Uint32Array;
}

/** xterm's per-write cost dominates small events: hand it at least this much at a time. */
const BATCH_BYTES = 64 * 1024;
/** Room left in a code point batch for the event that fills it (a typical event is a few KB of output). */
const EVENT_UNITS = 4 * 1024;

/** Reads a cast (streaming) and turns it into screen steps up to `position`. */
export async function* castSteps(path: string, position: CastPosition, split: CastSplit = {}): AsyncGenerator<CastStep> {
  const cast = await openCast(path);
  yield { kind: 'header', header: cast.header };
  const from = split.from ?? 0;
  const batchBytes = split.batchBytes ?? BATCH_BYTES;
  let batch: Buffer[] = [];
  let batchSize = 0;
  // Code points are gathered in one array per batch (the given one, or one of the batch's own).
  let codepoints: Uint32Array | undefined;
  const reading: CastReading = { outputCodepoints: split.codepoints === true };
  /** Room for `units` more code points in the batch array. */
  const room = (units: number): Uint32Array => {
    const needed = batchSize + units;
    // A batch ends once it holds batchBytes: sized for that and an event more, it is seldom grown.
    if (!codepoints) {
      const given = split.batchArray?.();
      codepoints = given && given.length >= needed ? given : new Uint32Array(Math.max(needed, batchBytes + EVENT_UNITS));
    }
    if (codepoints.length < needed) {
      const bigger = new Uint32Array(needed + EVENT_UNITS);
      bigger.set(codepoints.subarray(0, batchSize));
      codepoints = bigger;
    }
    return codepoints;
  };
  function* flush(): Generator<CastStep> {
    if (batchSize === 0) return;
    const size = batchSize;
    batchSize = 0;
    if (codepoints) {
      const batchCodepoints = codepoints.subarray(0, size);
      codepoints = undefined;
      yield { kind: 'codepoints', codepoints: batchCodepoints, repeats: mayHoldRepeatIn(batchCodepoints) };
      return;
    }
    const bytes = batch.length === 1 ? batch[0] : Buffer.concat(batch, size);
    batch = [];
    yield { kind: 'output', bytes };
  }
  let time = 0;
  const markers: string[] = [];
  let reachedMarker = false;
  let events = 0;
  for await (const event of cast.events(reading)) {
    if (position && 'seconds' in position && event.time > position.seconds) break;
    const until = split.until?.();
    if (until !== undefined && event.line >= until) {
      yield* flush();
      yield { kind: 'handoff', line: event.line };
      return;
    }
    if (split.progress) {
      split.progress.lines = event.line;
      if (event.code === 'o') split.progress.chars += event.codepoints?.length ?? event.data.length;
    }
    events++;
    time = event.time;
    const hit = event.code === 'm' && markerHit(markers, event.data, position);
    if (hit) reachedMarker = true;
    if (reading.outputCodepoints && event.bytes) {
      yield* flush();
      reading.outputCodepoints = false; // from here on bytes, decoded by xterm as the program's would be
    }
    if (event.line < from) {
      if (hit) break;
      continue;
    }
    if (event.code === 'o' && reading.outputCodepoints) {
      const decoded = event.codepoints ?? codepointsOf(event.data);
      room(decoded.length).set(decoded, batchSize);
      batchSize += decoded.length;
      if (batchSize >= batchBytes) yield* flush();
      continue;
    }
    if (event.code === 'o') {
      const bytes = eventBytes(event);
      batch.push(bytes);
      batchSize += bytes.length;
      if (batchSize >= batchBytes) yield* flush();
      continue;
    }
    yield* flush();
    if (event.code === 'r') {
      const size = parseResize(event.data);
      if (size) yield { kind: 'resize', rows: size.rows, cols: size.cols };
    } else if (event.code === 'x') {
      yield { kind: 'exit', status: Number(event.data) };
    } else if (hit) {
      break;
    }
  }
  yield* flush();
  yield { kind: 'end', time, markers, reachedMarker, events };
}

/** Records a marker; whether it is the position's. */
function markerHit(markers: string[], label: string, position: CastPosition): boolean {
  markers.push(label);
  return !!position && ('marker' in position ? label === position.marker : 'markerIndex' in position && markers.length === position.markerIndex);
}
