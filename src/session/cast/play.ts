import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { TapedeckError, type ErrorCode } from '../../core/diagnostics/errors.js';
import type { CastHeader } from '../../tape/asciicast/events.js';
import { castSteps, type CastPosition, type CastStep } from './steps.js';
import { loadScreenPackages, Screen } from '../screen/screen.js';

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

/**
 * The compiled worker; absent when running from TypeScript sources (tests),
 * where the cast is read on this thread instead.
 */
const WORKER_URL = new URL('./steps-worker.js', import.meta.url);

/** Steps read by a worker thread (parsing overlaps with xterm) with acks for flow control. */
async function* workerSteps(path: string, position: CastPosition): AsyncGenerator<CastStep, void, number | undefined> {
  const worker = new Worker(WORKER_URL, { workerData: { path, position } });
  const queue: (CastStep | ErrorStep | { kind: 'closed' })[] = [];
  let wake: (() => void) | undefined;
  const push = (item: CastStep | ErrorStep | { kind: 'closed' }) => {
    queue.push(item);
    wake?.();
  };
  worker.on('message', push);
  worker.on('error', (err) => push({ kind: 'error', error: { message: err.message } }));
  worker.on('exit', () => push({ kind: 'closed' }));
  try {
    for (;;) {
      if (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const item = queue.shift()!;
      if (item.kind === 'closed') return;
      if (item.kind === 'error') {
        const e = item.error;
        if (e.code) throw new TapedeckError(e.code, e.message, { location: e.location, details: e.details });
        throw new Error(e.message);
      }
      const parsed = yield item;
      if (parsed) worker.postMessage({ ack: parsed });
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
  const steps = useWorker ? workerSteps(path, position) : castSteps(path, position);
  // The worker starts on its own thread; loading xterm here meanwhile takes that time off the wall clock.
  if (useWorker) loadScreenPackages();
  let played: PlayedCast | undefined;
  let end: Extract<CastStep, { kind: 'end' }> | undefined;
  try {
    let parsed = 0;
    for (;;) {
      const next = await (steps as AsyncGenerator<CastStep, void, number | undefined>).next(parsed);
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
    await steps.return(undefined); // stops the worker, if any
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
