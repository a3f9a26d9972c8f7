import type { ScreenSnapshot } from './screen/screen.js';

/** The public shapes of a live terminal session (spawn options, results of input, waits and snapshots). */
export interface SpawnOptions {
  rows?: number;
  cols?: number;
  cwd?: string;
  /** Merged over the pinned environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** The environment to start from instead of process.env (an embedding caller's, like main(argv, io)'s io.env). */
  baseEnv?: NodeJS.ProcessEnv;
  /** TERM (default xterm-256color). */
  term?: string;
  /** Scrollback lines kept by the headless screen (default 1000). */
  scrollback?: number;
  /** Keep every event in `events.events` (default true; recorders that stream to disk turn it off). */
  retainEvents?: boolean;
  /** Rewrites output before it is logged or drawn (replay hides a tape's redacted values the way the tape does). */
  outputFilter?: (chunk: Buffer) => Buffer;
  /**
   * Answer terminal queries (device attributes, cursor position reports) from
   * the headless screen, as a real terminal would (default true). Turn off when
   * a real terminal already answers, e.g. interactive recording.
   */
  answerQueries?: boolean;
  /**
   * Parse plain output (no control sequences) only when the screen is read or
   * waited on (default false). For recorders, which rarely read it: after exit
   * read the screen through snapshot() or text(), which wait for the parse.
   */
  lazyScreen?: boolean;
}

export interface TerminalExit {
  exitCode: number;
  /** Name of the signal that ended the program, or null. */
  signal: string | null;
}

export interface InputResult {
  bytesWritten: number;
  seq: number;
}

export interface KeysResult extends InputResult {
  /** The keys as supplied. */
  accepted: string[];
}

export interface TerminalSnapshot extends ScreenSnapshot {
  /** Seq of the last output event whose bytes are on this screen. */
  capturedAtSeq: number;
}

/** Seed 002 §13.5's render-wait result; a timeout rejects (WAIT_TIMEOUT), so matched is always true. */
export interface ScreenWaitResult {
  matched: true; timedOut: false; matchedText?: string;
  cursorRow: number; cursorCol: number; capturedAtSeq: number;
}
