import { writeFileAtomic } from '../core/atomic-write.js';
import { withFileLock } from '../core/file-lock.js';
import { usageError } from '../core/errors.js';
import { BYTES_EVENT } from '../tape/asciicast.js';
import { Utf8Chunker, type Utf8Piece } from '../tape/asciicast-utf8.js';
import type { TerminalEvent } from '../session/events.js';
import type { TerminalPlan } from './terminal-plan.js';

/**
 * `--update` for terminal tapes: the tape is rewritten from the live run, in
 * one atomic replace. The header line stays byte for byte; the inputs,
 * markers and resizes are the tape's own, in order (they are what the replay
 * sent); the output and the exit status are the live program's.
 *
 * Timing: steps keep the recorded intervals between them, and each live
 * output keeps its live delay after the step before it. A replay runs much
 * faster than the person who recorded it, so live timestamps alone would
 * turn a 30-second session into a blur for anyone watching it in a player.
 */
export function rewriteCastFromLive(plan: TerminalPlan, live: readonly TerminalEvent[], stepTimes: ReadonlyMap<number, number>, target = plan.path): void {
  if (plan.header.version === 1) throw usageError(`${plan.path}: --update cannot rewrite an asciicast v1 tape (it has no inputs); record it again`);
  const text = castFromLive(plan, live, stepTimes);
  withFileLock(plan.path, () => writeFileAtomic(target, text));
}

/** The live run as cast text in the tape's own version (v1 tapes: as v2), header line kept. */
export function castFromLive(plan: TerminalPlan, live: readonly TerminalEvent[], stepTimes: ReadonlyMap<number, number>): string {
  if (plan.header.version === 1) {
    const header = { version: 2, width: plan.header.cols, height: plan.header.rows };
    return castFromLive({ ...plan, header: { ...plan.header, version: 2 }, headerLine: JSON.stringify(header) }, live, stepTimes);
  }
  const lines = [plan.headerLine];
  const v3 = plan.header.version === 3;
  const chunkers = { o: new Utf8Chunker(), i: new Utf8Chunker() };
  let written = 0; // time of the last written event (s)
  let offset = 0; // live time + offset = tape time
  let stepLive = 0;
  let stepTape = 0;
  let stepRecorded = 0;
  const emit = (time: number, code: string, data: string) => {
    const t = round(Math.max(time, written));
    lines.push(JSON.stringify([v3 ? round(t - written) : t, code, data]));
    written = t;
  };
  const piece = (time: number, code: 'o' | 'i', p: Utf8Piece | undefined) => {
    if (!p) return;
    emit(time, code, p.text);
    if (p.exact) emit(time, BYTES_EVENT, p.exact.toString('base64'));
  };
  for (const event of live) {
    const liveTime = event.time / 1000;
    const recorded = stepTimes.get(event.seq);
    if (recorded !== undefined) {
      // A tape step: place it the recorded interval after the previous step.
      stepTape = Math.max(written, stepTape + (recorded - stepRecorded), liveTime + offset);
      stepRecorded = recorded;
      stepLive = liveTime;
      offset = stepTape - stepLive;
    }
    const time = liveTime + offset;
    switch (event.type) {
      case 'output':
        piece(time, 'o', chunkers.o.push(event.data));
        break;
      case 'input':
        // The headless screen's answers to queries are not user input (as when recording).
        if (event.kind !== 'reply') piece(time, 'i', chunkers.i.push(event.data));
        break;
      case 'marker':
        emit(time, 'm', event.name);
        break;
      case 'resize':
        emit(time, 'r', `${event.cols}x${event.rows}`);
        break;
      case 'exit':
        piece(time, 'o', chunkers.o.flush());
        emit(time, 'x', String(event.exitCode));
        break;
      case 'signal':
        break;
    }
  }
  piece(written, 'o', chunkers.o.flush());
  piece(written, 'i', chunkers.i.flush());
  return `${lines.join('\n')}\n`;
}

function round(t: number): number {
  return Math.round(t * 1e6) / 1e6;
}
