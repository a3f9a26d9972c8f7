import { TapedeckError } from '../../core/diagnostics/errors.js';
import { readNumberedLines } from '../../core/text/lines.js';
import { eventBytes, parseResize, type CastEvent, type CastHeader, type TerminalSize } from '../../tape/asciicast/events.js';
import { openCast } from '../../tape/asciicast/read.js';
import { Screen } from '../../session/screen/screen.js';
import { commandForCast } from './command.js';
import { placeholdersIn, restore } from '../../core/text/redact.js';
import { restoreBytes } from '../../core/text/stream-redact.js';
import { requireTrustedCommand, type TapeTrust } from '../tape-trust.js';
import { describeInput } from './describe.js';
import { checkpointKey, syncKey, type ScreenCompareOptions } from './screen.js';

/**
 * A terminal tape turned into replay steps. The expected screens come from
 * the recorded output alone: every "o" event is fed into a headless screen of
 * the recorded size, and the screen is read at each input, marker, resize and
 * at the end. Reading and validating happen here, before any program starts,
 * so a malformed tape is an exit-2 error naming file:line and never half a run.
 */
export type TerminalStepKind = 'input' | 'marker' | 'resize' | 'end';

/** A line of the cast, for drift spans. */
export interface CastLineRef {
  line: number;
  byteStart: number;
  byteEnd: number;
  text: string;
}

export interface PlannedStep {
  /** 1-based. */
  step: number;
  kind: TerminalStepKind;
  /** `input "\r" (Enter)`, `marker "saved"`, `resize 100x30`, `end of tape`. */
  description: string;
  /** Recorded time in seconds since the start. */
  time: number;
  at: CastLineRef;
  input?: Buffer;
  marker?: string;
  size?: TerminalSize;
  /**
   * The recording showed output since the previous input or resize, so the
   * live screen is awaited before acting. Inputs sent back to back (no output
   * between) go out together: there was nothing to wait for when they were
   * recorded either.
   */
  sync: boolean;
  /**
   * Screens (sync keys) that let an input or resize go: first the one just
   * before it, then those the recording showed after it until the next step,
   * in case the live program drew the earlier state and the later one in one go.
   */
  accepted: string[];
  /** The screen this step is compared with: the sync key for inputs/resizes, the checkpoint key otherwise. */
  expected: string;
  /**
   * For a resize, and for the first input after one: how long the recording
   * showed no output before it (ms). The replay waits for the program to be
   * as quiet (within bounds) before acting: a resize sent while the program
   * is still writing a frame races its redraw, and an input sent during the
   * redraw a resize caused may land mid-frame.
   */
  quietMs?: number;
}

export interface TerminalPlan {
  path: string;
  header: CastHeader;
  /** Line 1 as stored (kept verbatim by --update). */
  headerLine: string;
  /** The command the tape is replayed against. */
  command: string[];
  /** In tape order; the last is the end of the tape. */
  steps: PlannedStep[];
  /** From an "x" event, when the tape records one. */
  recordedExit?: number;
  /** Time of the last event (s). */
  durationSeconds: number;
  /** Variables the tape stores redacted: the live output is redacted the same way before comparing. */
  secrets: string[];
  compare: ScreenCompareOptions;
}

export interface PlanOptions extends ScreenCompareOptions {
  /** Overrides the recorded command. */
  command?: readonly string[];
  /** When set, the recorded command runs only for tapes under these folders (the CLI's trust rule). */
  trust?: TapeTrust;
  /** Where redacted values ({{tapedeck.env.NAME}}) come from, over baseEnv. */
  env?: Record<string, string | undefined>;
  /** Default process.env. */
  baseEnv?: NodeJS.ProcessEnv;
}

/** Later screens accepted for one input: enough for split redraws, bounded for huge tapes. */
const MAX_LOOKAHEAD_SCREENS = 32;
/**
 * ... and bounded in cells read: each is a read of the whole screen, so a huge screen (a 1000x1000
 * resize) keeps fewer (8 there); every screen up to 250,000 cells (500x500) keeps all 32.
 */
const MAX_LOOKAHEAD_CELLS = 8_000_000;

/** How many later screens an input or resize keeps on a screen of this size (at least 1). */
export function lookaheadScreens(rows: number, cols: number): number {
  return Math.max(1, Math.min(MAX_LOOKAHEAD_SCREENS, Math.floor(MAX_LOOKAHEAD_CELLS / Math.max(1, rows * cols))));
}

function malformed(file: string, line: number, message: string): TapedeckError {
  return new TapedeckError('MALFORMED_CAST', message, { location: { file, line } });
}

export async function planTerminalReplay(path: string, options: PlanOptions = {}): Promise<TerminalPlan> {
  const cast = await openCast(path);
  const header = cast.header;
  const compare: ScreenCompareOptions = { mask: options.mask, styles: options.styles };
  const screen = new Screen({ rows: header.rows, cols: header.cols, scrollback: 0 });
  const steps: PlannedStep[] = [];
  const lineNumbers = new Set<number>([1]);
  let recordedExit: number | undefined;
  let exitLine: number | undefined;
  let lastLine = 1;
  let time = 0;
  let outputSinceStep = true; // the program's first screen is awaited like any other
  let collecting: PlannedStep | undefined; // the input/resize whose lookahead screens are being gathered
  let lastOutput = 0; // time (s) of the last output event
  let afterResize = false; // a resize came since the last input
  const secrets = new Set<string>();
  const secretEnv = { ...(options.baseEnv ?? process.env), ...options.env };
  try {
    for await (const event of cast.events()) {
      time = event.time;
      lastLine = event.line;
      if (event.code === 'o') {
        for (const n of placeholdersIn(event.data)) secrets.add(n);
        const written = screen.write(eventBytes(event));
        outputSinceStep = true;
        lastOutput = event.time;
        if (collecting && collecting.accepted.length < lookaheadScreens(screen.rows, screen.cols)) {
          await written;
          const key = syncKey(screen, compare);
          if (collecting.accepted.at(-1) !== key) collecting.accepted.push(key);
        }
        continue;
      }
      if (event.code === 'i') for (const n of placeholdersIn(event.data)) secrets.add(n);
      const step = await stepFor(path, event, screen, compare, steps.length + 1, outputSinceStep, secretEnv);
      if (event.code === 'x') {
        recordedExit = exitStatus(path, event);
        exitLine = event.line;
      }
      if (!step) continue;
      if (step.kind === 'resize' || (step.kind === 'input' && afterResize)) step.quietMs = Math.max(0, (event.time - lastOutput) * 1000);
      if (step.kind === 'resize') afterResize = true;
      else if (step.kind === 'input') afterResize = false;
      steps.push(step);
      lineNumbers.add(event.line);
      const acts = step.kind === 'input' || step.kind === 'resize';
      // Markers only look: an input after one still waits for its screen (at once, when the marker matched).
      if (acts) outputSinceStep = false;
      collecting = acts ? step : undefined;
      if (step.size) screen.resize(step.size.rows, step.size.cols);
    }
    await screen.flush();
    const endLine = exitLine ?? lastLine;
    lineNumbers.add(endLine);
    const final = checkpointKey(screen, compare);
    steps.push({ step: steps.length + 1, kind: 'end', description: 'end of tape', time, at: lineRef(endLine), sync: true, accepted: [final], expected: final });
  } finally {
    screen.dispose();
  }
  // After the events: a malformed line is reported before a missing command.
  const recorded = commandForCast(path, header, options.command);
  // A redacted argument (record --redact-env) runs with its value; the screens keep the placeholder.
  const command = recorded.map((arg) => restore(arg, secretEnv, { file: path, line: 1 }));
  for (const arg of recorded) for (const n of placeholdersIn(arg)) secrets.add(n);
  if (options.trust && !(options.command && options.command.length > 0)) requireTrustedCommand(path, recorded, options.trust);
  const lines = await readLines(path, lineNumbers, header.version === 1);
  for (const s of steps) s.at = lines.get(s.at.line) ?? s.at;
  return { path, header, headerLine: lines.get(1)?.text ?? '', command, steps, recordedExit, durationSeconds: time, compare, secrets: [...secrets] };
}

/** The step an event stands for (none for exit and unknown codes, which players skip too). */
async function stepFor(path: string, event: CastEvent, screen: Screen, compare: ScreenCompareOptions, step: number, sync: boolean, env: NodeJS.ProcessEnv): Promise<PlannedStep | undefined> {
  const base = { step, time: event.time, at: lineRef(event.line), sync };
  if (event.code === 'i' || event.code === 'r') {
    await screen.flush();
    const before = syncKey(screen, compare);
    if (event.code === 'i') {
      const input = restoreBytes(eventBytes(event), env, { file: path, line: event.line });
      return { ...base, kind: 'input', description: describeInput(input), input, accepted: [before], expected: before };
    }
    const size = parseResize(event.data)!; // validated by the reader
    return { ...base, kind: 'resize', description: `resize ${event.data}`, size, accepted: [before], expected: before };
  }
  if (event.code === 'm') {
    await screen.flush();
    const expected = checkpointKey(screen, compare);
    return { ...base, kind: 'marker', description: `marker ${JSON.stringify(event.data)}`, marker: event.data, accepted: [expected], expected };
  }
  return undefined;
}

function exitStatus(path: string, event: CastEvent): number {
  const status = Number(event.data);
  if (event.data.trim() === '' || !Number.isInteger(status)) throw malformed(path, event.line, `exit event data must be a whole number, got ${JSON.stringify(event.data)}`);
  return status;
}

function lineRef(line: number): CastLineRef {
  return { line, byteStart: 0, byteEnd: 0, text: '' };
}

/** Text and byte offsets of the wanted lines (v1 casts are one JSON document: line 1 spans it all). */
async function readLines(path: string, wanted: Set<number>, wholeFile: boolean): Promise<Map<number, CastLineRef>> {
  const out = new Map<number, CastLineRef>();
  let last: CastLineRef | undefined;
  for await (const l of readNumberedLines(path)) {
    if (wholeFile) {
      last = last ? { ...last, byteEnd: l.byteEnd, text: `${last.text}\n${l.text}` } : { ...l };
      continue;
    }
    if (wanted.has(l.line)) out.set(l.line, { ...l });
    if (out.size === wanted.size) break;
  }
  if (wholeFile && last) out.set(1, last);
  return out;
}
