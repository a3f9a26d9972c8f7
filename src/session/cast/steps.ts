import { eventBytes, parseResize, type CastHeader } from '../../tape/asciicast/events.js';
import { openCast } from '../../tape/asciicast/read.js';
import { codepointsOf } from '../../core/text/codepoints.js';
import { mayHoldRepeat } from '../screen/vt-guard.js';

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
  /** A spare array to decode into (the player hands emptied ones back), if it has one. */
  spareCodepoints?: () => Uint32Array | undefined;
}

/** xterm's per-write cost dominates small events: hand it at least this much at a time. */
const BATCH_BYTES = 64 * 1024;

/** Reads a cast (streaming) and turns it into screen steps up to `position`. */
export async function* castSteps(path: string, position: CastPosition, split: CastSplit = {}): AsyncGenerator<CastStep> {
  const cast = await openCast(path);
  yield { kind: 'header', header: cast.header };
  const from = split.from ?? 0;
  const batchBytes = split.batchBytes ?? BATCH_BYTES;
  let batch: Buffer[] = [];
  let texts: string[] = [];
  let batchSize = 0;
  let asCodepoints = split.codepoints === true;
  function* flush(): Generator<CastStep> {
    if (batchSize === 0) return;
    const size = batchSize;
    batchSize = 0;
    if (texts.length > 0) {
      const batch = texts;
      texts = [];
      yield { kind: 'codepoints', codepoints: codepointsOf(batch, split.spareCodepoints?.()), repeats: mayHoldRepeat(batch) };
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
  for await (const event of cast.events()) {
    if (position && 'seconds' in position && event.time > position.seconds) break;
    const until = split.until?.();
    if (until !== undefined && event.line >= until) {
      yield* flush();
      yield { kind: 'handoff', line: event.line };
      return;
    }
    if (split.progress) {
      split.progress.lines = event.line;
      if (event.code === 'o') split.progress.chars += event.data.length;
    }
    events++;
    time = event.time;
    const hit = event.code === 'm' && markerHit(markers, event.data, position);
    if (hit) reachedMarker = true;
    if (asCodepoints && event.bytes) {
      yield* flush();
      asCodepoints = false;
    }
    if (event.line < from) {
      if (hit) break;
      continue;
    }
    if (event.code === 'o' && asCodepoints) {
      texts.push(event.data);
      batchSize += event.data.length;
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
