import { oneLine, terminalSafe } from '../text/terminal-safe.js';

/**
 * One difference between a live run and its tape: where, what, and how to accept it.
 * TD10xx: protocol tapes; TD11xx: terminal tapes (there `pair` is the 1-based step,
 * `request` describes the step and `expected`/`actual` are screen texts).
 */
export type DriftCode = 'TD1001' | 'TD1002' | 'TD1003' | 'TD1004' | 'TD1005' | 'TD1006' | 'TD1101' | 'TD1102' | 'TD1103' | 'TD1104' | 'TD1105' | 'TD1106' | 'TD1201' | 'TD1202' | 'TD1203' | 'TD1204' | 'TD1205';

export interface Drift {
  code: DriftCode;
  /** The tape file and the pair's place in it. */
  tape: string;
  line: number;
  byteStart: number;
  byteEnd: number;
  /** 1-based index of the pair in the tape. */
  pair: number;
  request: string;
  /** The tape line as stored. */
  recordedLine: string;
  title: string;
  /** Human lines: differing JSONPaths, a unified diff, an exit status and stderr tail. */
  details: string[];
  /** The recorded response (placeholders restored) and what came live, when there was one. */
  expected: string;
  actual?: string;
  /** The tape line that would accept the live response (absent when there is none to accept). */
  acceptLine?: string;
  /** The file `line` is in when it is not the tape: the tape's notes (a pair kept there, such as an HTTP GET). */
  file?: string;
}

/** Terminal drift codes are TD11xx: their "pair" is a step of the cast. */
export function isTerminalDrift(d: Drift): boolean {
  return d.code.startsWith('TD11') || d.code.startsWith('TD12');
}

/**
 * A drift as text lines, the same in the CLI summary, test failures and CI
 * reports: `tape:line: pair|step N: title [code]`, then (indented) the
 * request or step, then the details.
 */
export function driftLines(d: Drift, options: { tape?: string; indent?: string; clipRequest?: number } = {}): string[] {
  const indent = options.indent ?? '  ';
  const terminal = isTerminalDrift(d);
  const request = options.clipRequest && d.request.length > options.clipRequest ? `${d.request.slice(0, options.clipRequest - 1)}…` : d.request;
  // Everything here may come from a tape or a live program: control bytes are shown, never sent to
  // the terminal, and no line may start with `::` (a GitHub workflow command).
  return [
    `${oneLine(options.tape ?? d.tape)}:${d.line}: ${terminal ? 'step' : 'pair'} ${d.pair}: ${oneLine(d.title)} [${d.code}]`,
    // A terminal drift's title already names its step (the input or marker).
    ...(terminal ? [] : [`${indent}request: ${oneLine(request)}`]),
    ...d.details.map((l) => `${indent}${terminalSafe(l)}`),
  ];
}
