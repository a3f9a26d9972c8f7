import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { TapedeckError, type ErrorCode } from '../../core/diagnostics/errors.js';
import type { CastHeader } from '../../tape/asciicast/events.js';
import { castSteps, type CastPosition, type CastStep } from './steps.js';
import { loadScreenPackages, Screen } from '../screen/screen.js';
import { createRing, slotView } from './codepoint-ring.js';

export type { CastPosition } from './steps.js';

export interface PlayedCast {
  header: CastHeader;
  screen: Screen;
  /** Time (s) of the last event applied. */
  time: number;
  /** Exit status from an "x" event, if the tape reached it. */
  exitStatus?: number;
  /** Markers passed on the way. */
  markers: string[];
  /** Tape events applied (up to the position). */
  events: number;
}

/** Tapes smaller than this are read on this thread. */
const WORKER_MIN_BYTES = 1024 * 1024;

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0; // the reader reports the real problem, naming the file
  }
}


type ErrorStep = { kind: 'error'; error: { code?: ErrorCode; message: string; location?: { file: string; line?: number }; details?: Record<string, unknown> } };
/** A batch of code points in a slot of the shared ring (codepoint-ring.ts). */
type RingStep = { kind: 'ring'; slot: number; length: number; repeats: boolean };
type WorkerItem = CastStep | RingStep | ErrorStep | { kind: 'closed' } | { kind: 'ready' };

/**
 * The compiled worker; absent when running from TypeScript sources (tests),
 * where the cast is read on this thread instead.
 */
const WORKER_URL = new URL('./steps-worker.js', import.meta.url);

/**
 * Output characters this thread reads past the point where the worker said it
 * was ready, at least, before handing over: the worker re-reads (without
 * sending) what came before, and this keeps the screen busy meanwhile.
 */
const HANDOFF_AHEAD_CHARS = 256 * 1024;
const ACK_BYTES = 512 * 1024;
/** Ring slots parsed before they are acked: the worker may fill the other RING_SLOTS - ACK_SLOTS meanwhile. */
const ACK_SLOTS = 4;

/**
 * Steps of a large cast. A worker thread reads and parses it (JSON parsing
 * overlaps with xterm's), but a worker takes 50-100 ms to start, and longer on a
 * busy machine: meanwhile this thread reads the start of the cast itself, and
 * once the worker is ready hands it the rest, from a line a little ahead
 * (both readers split by line, so every event is applied once, in order).
 * Acks give the worker flow control.
 */
interface Reader {
  steps: AsyncGenerator<CastStep, void, number | undefined>;
  /** Ends the worker even when no step was read (a generator not started runs no finally). */
  stop(): Promise<unknown>;
}

function workerSteps(path: string, position: CastPosition): Reader {
  // Started now, not at the first step: it boots while the caller loads xterm.
  const ring = createRing();
  const worker = new Worker(WORKER_URL, { workerData: { path, position, ring } });
  const queue: WorkerItem[] = [];
  let wake: (() => void) | undefined;
  let ready = false;
  const push = (item: WorkerItem) => {
    if (item.kind === 'ready') ready = true;
    else queue.push(item);
    wake?.();
  };
  worker.on('message', push);
  worker.on('error', (err) => push({ kind: 'error', error: { message: err.message } }));
  worker.on('exit', () => push({ kind: 'closed' }));
  return { steps: stepsVia(worker, ring, queue, () => ready, (w) => (wake = w), path, position), stop: () => worker.terminate() };
}

async function* stepsVia(
  worker: Worker,
  ring: SharedArrayBuffer,
  queue: WorkerItem[],
  isReady: () => boolean,
  onWake: (wake: () => void) => void,
  path: string,
  position: CastPosition,
): AsyncGenerator<CastStep, void, number | undefined> {
  try {
    // The start of the cast, on this thread, until the worker is ready and the hand-over line is reached.
    const progress = { lines: 0, chars: 0 };
    let handoffLine: number | undefined;
    const until = () => {
      if (handoffLine === undefined && isReady()) {
        // Lines ahead for about HANDOFF_AHEAD_CHARS of output (at least 1), from the output per line so far.
        const perLine = progress.lines > 0 ? Math.max(1, progress.chars / progress.lines) : 1;
        handoffLine = progress.lines + 1 + Math.ceil(HANDOFF_AHEAD_CHARS / perLine);
        worker.postMessage({ from: handoffLine });
      }
      return handoffLine;
    };
    for await (const step of castSteps(path, position, { until, progress })) {
      if (step.kind === 'handoff') break;
      yield step; // read on this thread: nothing to ack
      if (step.kind === 'end') return; // the end came before any hand-over: the worker is not needed
    }
    let unacked = 0;
    let slotsParsed = 0;
    for (;;) {
      while (queue.length === 0) await new Promise<void>((resolve) => onWake(resolve));
      const item = queue.shift()!;
      if (item.kind === 'closed') return;
      if (item.kind === 'error') {
        const e = item.error;
        if (e.code) throw new TapedeckError(e.code, e.message, { location: e.location, details: e.details });
        throw new Error(e.message);
      }
      if (item.kind === 'header') continue; // this thread gave it already
      if (item.kind === 'ring') {
        // Parsed before the generator goes on, so the slot is free once this yield returns.
        yield { kind: 'codepoints', codepoints: slotView(ring, item.slot).subarray(0, item.length), repeats: item.repeats };
        slotsParsed++;
      } else {
        const parsed = yield item as CastStep;
        if (parsed) unacked += parsed;
      }
      // Acked every ACK_SLOTS slots or ACK_BYTES of other output, and before any other step: a message per batch cost the main thread.
      const other = item.kind !== 'ring' && item.kind !== 'output' && item.kind !== 'codepoints';
      if (slotsParsed >= ACK_SLOTS || unacked >= ACK_BYTES || (other && (slotsParsed > 0 || unacked > 0))) {
        worker.postMessage({ ack: unacked, slots: slotsParsed });
        unacked = 0;
        slotsParsed = 0;
      }
    }
  } finally {
    await worker.terminate();
  }
}

/**
 * Plays a cast onto a fresh headless screen up to a position, streaming: the
 * tape is read line by line and xterm is never more than a few MB behind.
 */
export async function playCast(path: string, position?: CastPosition, options: { scrollback?: number } = {}): Promise<PlayedCast> {
  // The worker pays off when parsing a big tape can overlap with xterm; starting one costs ~40 ms.
  const useWorker = existsSync(fileURLToPath(WORKER_URL)) && fileSize(path) >= WORKER_MIN_BYTES;
  const reader: Reader = useWorker ? workerSteps(path, position) : { steps: castSteps(path, position), stop: async () => undefined };
  const steps = reader.steps;
  let played: PlayedCast | undefined;
  let end: Extract<CastStep, { kind: 'end' }> | undefined;
  try {
    // The worker starts on its own thread; loading xterm here meanwhile takes that time off the wall clock.
    if (useWorker) loadScreenPackages();
    let parsed = 0;
    for (;;) {
      const next = await steps.next(parsed);
      parsed = 0;
      if (next.done) break;
      const step = next.value;
      if (step.kind === 'header') {
        played = { header: step.header, screen: new Screen({ rows: step.header.rows, cols: step.header.cols, scrollback: options.scrollback }), time: 0, markers: [], events: 0 };
        continue;
      }
      const screen = played!.screen;
      if (step.kind === 'output') {
        // Parsed on this tick (nothing waits on this screen yet); memory stays bounded by the reader's acks.
        screen.writeNow(step.bytes);
        parsed = step.bytes.length; // acked on the next pull
      } else if (step.kind === 'codepoints') {
        screen.writeCodepointsNow(step.codepoints, step.repeats);
        parsed = step.codepoints.byteLength;
      } else if (step.kind === 'resize') {
        screen.resize(step.rows, step.cols);
      } else if (step.kind === 'exit') {
        played!.exitStatus = step.status;
      } else if (step.kind === 'end') {
        end = step;
      }
    }
    await played?.screen.flush();
  } catch (err) {
    played?.screen.dispose();
    await steps.return(undefined);
    await reader.stop();
    throw err;
  }
  if (!played || !end) throw new Error(`cast player ended early: ${path}`);
  played.time = end.time;
  played.markers = end.markers;
  played.events = end.events;
  if (position && ('marker' in position || 'markerIndex' in position) && !end.reachedMarker) {
    played.screen.dispose();
    const known = end.markers.length ? `markers in the tape: ${end.markers.map((m, i) => `#${i + 1} ${JSON.stringify(m)}`).join(', ')}` : 'the tape has no markers';
    const wanted = 'marker' in position ? JSON.stringify(position.marker) : `#${position.markerIndex}`;
    throw new TapedeckError('MARKER_NOT_FOUND', `no marker ${wanted} (${known})`, {
      location: { file: path },
      details: { marker: 'marker' in position ? position.marker : `#${position.markerIndex}`, markers: end.markers },
    });
  }
  return played;
}
