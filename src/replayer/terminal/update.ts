import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../core/files/atomic-write.js';
import { withFileLock } from '../../core/files/file-lock.js';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { BYTES_EVENT } from '../../tape/asciicast/events.js';
import { Utf8Chunker, type Utf8Piece } from '../../tape/asciicast/utf8.js';
import type { TerminalEvent } from '../../session/events.js';
import type { TerminalPlan } from './plan.js';

/** A step the replay carried out: its recorded time and cast line, keyed by the live event's seq. */
export interface StepRef {
  time: number;
  line: number;
}

/**
 * `--update` for terminal tapes: the tape is rewritten from the live run, in
 * one atomic replace. The header line stays byte for byte, and so do v3
 * comment lines (each before the step it preceded); the inputs, markers and
 * resizes are the tape's own, in order (they are what the replay sent), at
 * their recorded times; the output and the exit status are the live program's.
 *
 * Timing: every step keeps its recorded time, so the intervals between steps
 * are the recording's (a replay waits for screens and runs faster or slower
 * than the person who recorded it; neither belongs in the tape). Live output
 * keeps its live delay after the step before it, capped at the next step.
 */
export function rewriteCastFromLive(plan: TerminalPlan, live: readonly TerminalEvent[], steps: ReadonlyMap<number, StepRef>, target = plan.path): void {
  if (plan.header.version === 1) {
    throw new TapedeckError('INVALID_INPUT', '--update cannot rewrite an asciicast v1 tape (it has no inputs); record it again', { location: { file: plan.path, line: 1 } });
  }
  const text = castFromLive(plan, live, steps, readComments(plan));
  withFileLock(plan.path, () => writeFileAtomic(target, text)); // one writer at a time per tape
}

/** The live run as cast text in the tape's own version (v1 tapes: as v2), header line kept. */
export function castFromLive(plan: TerminalPlan, live: readonly TerminalEvent[], steps: ReadonlyMap<number, StepRef>, comments: Comment[] = []): string {
  if (plan.header.version === 1) {
    const header = { version: 2, width: plan.header.cols, height: plan.header.rows };
    return castFromLive({ ...plan, header: { ...plan.header, version: 2 }, headerLine: JSON.stringify(header) }, live, steps);
  }
  const lines = [plan.headerLine];
  const v3 = plan.header.version === 3;
  const chunkers = { o: new Utf8Chunker(), i: new Utf8Chunker() };
  // Recorded step times in live order: output after a step never runs past the next one.
  const stepOrder = live.filter((e) => steps.has(e.seq)).map((e) => steps.get(e.seq)!.time);
  let next = 0; // index in stepOrder of the next step
  let written = 0; // time of the last written event (s)
  let stepLive = 0; // live time of the last step (s)
  let stepTape = 0; // its tape time
  let comment = 0;
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
    const step = steps.get(event.seq);
    let time: number;
    if (step) {
      while (comment < comments.length && comments[comment].before <= step.line) lines.push(comments[comment++].text);
      time = stepTape = step.time;
      stepLive = liveTime;
      next++;
    } else {
      const cap = next < stepOrder.length ? stepOrder[next] : Infinity;
      time = Math.min(stepTape + (liveTime - stepLive), cap);
    }
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
  while (comment < comments.length) lines.push(comments[comment++].text);
  return `${lines.join('\n')}\n`;
}

/** A v3 comment line and the cast line of the event after it. */
interface Comment {
  text: string;
  before: number;
}

function readComments(plan: TerminalPlan): Comment[] {
  if (plan.header.version !== 3) return [];
  const text = readFileSync(plan.path, 'utf8');
  if (!text.includes('\n#')) return [];
  const out: Comment[] = [];
  text.split('\n').forEach((line, i) => {
    if (i > 0 && line.startsWith('#')) out.push({ text: line.replace(/\r$/, ''), before: i + 2 });
  });
  return out;
}

function round(t: number): number {
  return Math.round(t * 1e6) / 1e6;
}
