import { eventBytes, parseResize, type CastHeader } from '../../tape/asciicast/events.js';
import { openCast } from '../../tape/asciicast/read.js';

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
  | { kind: 'resize'; rows: number; cols: number }
  | { kind: 'exit'; status: number }
  | { kind: 'end'; time: number; markers: string[]; reachedMarker: boolean; /** Tape events applied. */ events: number };

/** xterm's per-write cost dominates small events: hand it at least this much at a time. */
const BATCH_BYTES = 64 * 1024;

/** Reads a cast (streaming) and turns it into screen steps up to `position`. */
export async function* castSteps(path: string, position: CastPosition): AsyncGenerator<CastStep> {
  const cast = await openCast(path);
  yield { kind: 'header', header: cast.header };
  let batch: Buffer[] = [];
  let batchSize = 0;
  function* flush(): Generator<CastStep> {
    if (batchSize === 0) return;
    const bytes = batch.length === 1 ? batch[0] : Buffer.concat(batch, batchSize);
    batch = [];
    batchSize = 0;
    yield { kind: 'output', bytes };
  }
  let time = 0;
  const markers: string[] = [];
  let reachedMarker = false;
  let events = 0;
  for await (const event of cast.events()) {
    if (position && 'seconds' in position && event.time > position.seconds) break;
    events++;
    time = event.time;
    if (event.code === 'o') {
      const bytes = eventBytes(event);
      batch.push(bytes);
      batchSize += bytes.length;
      if (batchSize >= BATCH_BYTES) yield* flush();
      continue;
    }
    yield* flush();
    if (event.code === 'r') {
      const size = parseResize(event.data);
      if (size) yield { kind: 'resize', rows: size.rows, cols: size.cols };
    } else if (event.code === 'x') {
      yield { kind: 'exit', status: Number(event.data) };
    } else if (event.code === 'm') {
      markers.push(event.data);
      const hit = position && ('marker' in position ? event.data === position.marker : 'markerIndex' in position && markers.length === position.markerIndex);
      if (hit) {
        reachedMarker = true;
        break;
      }
    }
  }
  yield* flush();
  yield { kind: 'end', time, markers, reachedMarker, events };
}
