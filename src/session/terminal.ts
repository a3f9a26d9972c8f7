import { constants } from 'node:os';
import { TapedeckError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { Screen, type ScreenSnapshot, type SnapshotOptions } from './screen.js';
import { pinnedEnv } from './env.js';
import { EventLog, type InputKind, type TerminalEvent } from './events.js';
import { encodeKeys } from './keys.js';
import { PtyProcess, killGroup, type PtyExit } from './pty.js';
import { trackProcess } from './registry.js';
import { checkWorkingDirectory, resolveCommand } from './resolve-command.js';
import { normaliseSignal } from './signals.js';
import { DEFAULT_WAIT_TIMEOUT_MS, exitedWhileWaitingError, validateDuration, waitTimeoutError, type WaitOptions } from './waits.js';

export interface SpawnOptions {
  rows?: number;
  cols?: number;
  cwd?: string;
  /** Merged over the pinned environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** TERM (default xterm-256color). */
  term?: string;
  /** Scrollback lines kept by the headless screen (default 1000). */
  scrollback?: number;
  /** Keep every event in `events.events` (default true; recorders that stream to disk turn it off). */
  retainEvents?: boolean;
  outputFilter?: (chunk: Buffer) => Buffer; // rewrites output before it is logged or drawn (replay's redaction)
  /**
   * Answer terminal queries (device attributes, cursor position reports) from
   * the headless screen, as a real terminal would (default true). Turn off when
   * a real terminal already answers, e.g. interactive recording.
   */
  answerQueries?: boolean;
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

interface WaitContext<T> {
  resolve(value: T): void;
  reject(err: Error): void;
}

interface WaitHooks<T> {
  start?(ctx: WaitContext<T>): void;
  /** After new output is on the screen. */
  screen?(ctx: WaitContext<T>): void;
  /** As soon as output bytes arrive (before parsing). */
  output?(ctx: WaitContext<T>): void;
  /** After the program exited and its last bytes are on the screen. */
  exit?(ctx: WaitContext<T>): void;
  cleanup?(): void;
}

interface Watcher {
  screen(): void;
  output(): void;
  exit(): void;
}

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, num]) => [num, name]));

/** Spawns `command` in a fresh PTY with a headless xterm screen attached. */
export function spawnTerminal(command: string, args: string[] = [], options: SpawnOptions = {}): Terminal {
  return new Terminal(command, args, options);
}

/**
 * One live terminal program: PTY child, headless screen, input, waits,
 * snapshots and an event log. Release it with dispose().
 */
export class Terminal {
  readonly command: string;
  readonly args: string[];
  readonly screen: Screen;
  readonly events: EventLog;
  /** Settles once the program ended and all its output is on the screen. */
  readonly exited: Promise<TerminalExit>;
  private readonly child: PtyProcess;
  private readonly untrack: () => void;
  private readonly watchers = new Set<Watcher>();
  private exitInfo: TerminalExit | null = null;
  private renderedSeq = 0;
  private resolveExited!: (exit: TerminalExit) => void;
  private disposed = false;

  constructor(command: string, args: string[], options: SpawnOptions) {
    const rows = options.rows ?? 24;
    const cols = options.cols ?? 80;
    validateSize(rows, cols);
    const cwd = options.cwd ?? process.cwd();
    const env = pinnedEnv({ rows, cols, term: options.term, env: options.env });
    checkWorkingDirectory(cwd);
    const file = resolveCommand(command, cwd, env);
    this.command = command;
    this.args = args;
    this.events = new EventLog(options.retainEvents ?? true);
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    // Start the child first: it boots while the screen is being built (output arrives on a later tick).
    this.child = new PtyProcess({
      command: file,
      args,
      rows,
      cols,
      cwd,
      env,
      onData: (chunk) => this.onOutput(options.outputFilter ? options.outputFilter(chunk) : chunk),
      onExit: (exit) => void this.onExit(exit),
    });
    this.untrack = trackProcess(this.child);
    this.screen = new Screen({ rows, cols, scrollback: options.scrollback });
    if (options.answerQueries ?? true) {
      // Programs such as vim query the terminal and may stall without an answer.
      this.screen.xterm.onData((reply) => {
        if (this.running) this.send('reply', Buffer.from(reply, 'utf8'));
      });
      this.screen.xterm.onBinary((reply) => {
        if (this.running) this.send('reply', Buffer.from(reply, 'latin1'));
      });
    }
  }

  get pid(): number {
    return this.child.pid;
  }

  get rows(): number {
    return this.screen.rows;
  }

  get cols(): number {
    return this.screen.cols;
  }

  get running(): boolean {
    return this.exitInfo === null;
  }

  /** The program's exit code once it ended, else null. */
  get exitCode(): number | null {
    return this.exitInfo?.exitCode ?? null;
  }

  get exitSignal(): string | null {
    return this.exitInfo?.signal ?? null;
  }

  /** Subscribes to every event as it is logged; returns an unsubscribe function. */
  onEvent(listener: (event: TerminalEvent) => void): () => void {
    return this.events.subscribe(listener);
  }

  private onOutput(chunk: Buffer): void {
    const event = this.events.append({ type: 'output', data: chunk });
    for (const w of this.watchers) w.output();
    void this.screen.write(chunk).then(() => {
      this.renderedSeq = event.seq;
      for (const w of this.watchers) w.screen();
    });
  }

  private async onExit(exit: PtyExit): Promise<void> {
    await this.screen.flush();
    const info: TerminalExit = { exitCode: exit.exitCode, signal: exit.signal ? SIGNAL_NAMES.get(exit.signal) ?? String(exit.signal) : null };
    this.exitInfo = info;
    this.untrack();
    this.events.append({ type: 'exit', exitCode: info.exitCode, signal: info.signal });
    for (const w of this.watchers) w.exit();
    this.resolveExited(info);
  }

  // ---- input -------------------------------------------------------------

  private send(kind: InputKind, bytes: Buffer, extra: { keys?: string[]; text?: string } = {}): InputResult {
    if (!this.running) {
      throw new TapedeckError('SESSION_NOT_RUNNING', `cannot send input: ${this.command} has exited (code ${this.exitCode})`, { exitCode: ExitCode.notRunning });
    }
    const event = this.events.append({ type: 'input', kind, data: bytes, ...extra });
    this.child.write(bytes);
    return { bytesWritten: bytes.length, seq: event.seq };
  }

  /** Writes text as raw UTF-8, as if typed (never bracketed). */
  type(text: string): InputResult {
    return this.send('type', Buffer.from(text, 'utf8'), { text });
  }

  /** Pastes text: bracketed (ESC[200~ … ESC[201~) when the program enabled DECSET 2004 or alwaysBracketed (seed 002), raw otherwise. */
  paste(text: string, options: { alwaysBracketed?: boolean } = {}): InputResult {
    const body = this.screen.modes.bracketedPaste || options.alwaysBracketed ? `\x1b[200~${text}\x1b[201~` : text;
    return this.send('paste', Buffer.from(body, 'utf8'), { text });
  }

  /** Sends named keys and chords (seed 002 key grammar), honouring cursor/keypad modes. Typed: a misspelt key is a compile error. */
  press(...keys: import('./key-names.js').KeyName[]): KeysResult {
    const bytes = Buffer.from(encodeKeys(keys, this.screen.modes), 'utf8');
    return { accepted: keys, ...this.send('keys', bytes, { keys }) };
  }

  /** Writes bytes exactly as given (used to replay recorded input). */
  write(bytes: Buffer | string): InputResult {
    return this.send('raw', typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes);
  }

  resize(rows: number, cols: number): { rows: number; cols: number; seq: number } {
    validateSize(rows, cols);
    if (this.running) this.child.resize(rows, cols);
    this.screen.resize(rows, cols);
    const event = this.events.append({ type: 'resize', rows, cols });
    return { rows, cols, seq: event.seq };
  }

  signal(name: string): { signal: string; seq: number } {
    const signal = normaliseSignal(name);
    if (!this.running) {
      throw new TapedeckError('SESSION_NOT_RUNNING', `cannot send ${signal}: ${this.command} has exited`, { exitCode: ExitCode.notRunning });
    }
    const event = this.events.append({ type: 'signal', signal });
    this.child.signal(signal);
    return { signal, seq: event.seq };
  }

  /** Drops a named checkpoint into the event log (an "m" event in a cast). */
  marker(name: string): { name: string; seq: number } {
    return { name, seq: this.events.append({ type: 'marker', name }).seq };
  }

  // ---- lifecycle ---------------------------------------------------------

  /**
   * Ends the program and its process group: SIGHUP and close the PTY, then
   * SIGKILL if it is still there after `graceMs`. Resolves once it has exited.
   */
  async kill(graceMs = 1000): Promise<TerminalExit> {
    if (this.exitInfo) return this.exitInfo;
    this.child.destroy();
    const timer = setTimeout(() => killGroup(this.child.pid, 'SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Kills the program if needed and frees the PTY and the screen. Safe to call twice. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.kill();
    this.child.destroy();
    this.screen.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  // ---- reading the screen --------------------------------------------------

  async snapshot(options: SnapshotOptions = {}): Promise<TerminalSnapshot> {
    await this.screen.flush();
    return { ...this.screen.snapshot(options), capturedAtSeq: this.renderedSeq };
  }

  /** The visible screen as plain text (never-written cells trimmed, trailing blank rows dropped). */
  async text(): Promise<string> {
    await this.screen.flush();
    return this.screen.text();
  }

  // ---- waits ----------------------------------------------------------------

  private wait<T>(what: string, options: WaitOptions, hooks: WaitHooks<T>): Promise<T> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
    validateDuration('timeoutMs', timeoutMs);
    return new Promise<T>((resolve, reject) => {
      let done = false;
      const finish = (settle: () => void) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.watchers.delete(watcher);
        hooks.cleanup?.();
        settle();
      };
      const ctx: WaitContext<T> = {
        resolve: (value) => finish(() => resolve(value)),
        reject: (err) => finish(() => reject(err)),
      };
      const watcher: Watcher = {
        screen: () => hooks.screen?.(ctx),
        output: () => hooks.output?.(ctx),
        exit: () => hooks.exit?.(ctx),
      };
      const timer = setTimeout(
        () => ctx.reject(waitTimeoutError(what, timeoutMs, this.screen.text(), { capturedAtSeq: this.renderedSeq })),
        timeoutMs,
      );
      this.watchers.add(watcher);
      hooks.start?.(ctx);
    });
  }

  private screenResult(matchedText?: string): ScreenWaitResult {
    const c = this.screen.cursor;
    return { matched: true, timedOut: false, ...(matchedText === undefined ? {} : { matchedText }), cursorRow: c.row, cursorCol: c.col, capturedAtSeq: this.renderedSeq };
  }

  /** A wait on a screen condition: checked now, after every parsed output, and once more at exit. */
  private waitForScreen(what: string, options: WaitOptions, test: () => string | boolean): Promise<ScreenWaitResult> {
    const check = (ctx: WaitContext<ScreenWaitResult>) => {
      const hit = test();
      if (hit !== false) ctx.resolve(this.screenResult(typeof hit === 'string' ? hit : undefined));
      return hit !== false;
    };
    return this.wait<ScreenWaitResult>(what, options, {
      start: (ctx) => {
        if (check(ctx)) return;
        if (this.exitInfo) ctx.reject(exitedWhileWaitingError(what, this.screen.text(), this.exitInfo));
      },
      screen: check,
      exit: (ctx) => {
        if (!check(ctx) && this.exitInfo) ctx.reject(exitedWhileWaitingError(what, this.screen.text(), this.exitInfo));
      },
    });
  }

  /** Waits until the visible screen contains `pattern` (a literal string or a RegExp). */
  waitForText(pattern: string | RegExp, options: WaitOptions = {}): Promise<ScreenWaitResult> {
    if (typeof pattern !== 'string') return this.waitForRegex(pattern, options);
    return this.waitForScreen(`text ${JSON.stringify(pattern)}`, options, () => (this.screen.text().includes(pattern) ? pattern : false));
  }

  waitForRegex(pattern: RegExp, options: WaitOptions = {}): Promise<ScreenWaitResult> {
    return this.waitForScreen(`regex ${pattern}`, options, () => {
      pattern.lastIndex = 0;
      const m = pattern.exec(this.screen.text());
      return m ? m[0] : false;
    });
  }

  /** Waits until the cursor is at (row, col), 0-based. */
  waitForCursor(row: number, col: number, options: WaitOptions = {}): Promise<ScreenWaitResult> {
    return this.waitForScreen(`cursor at row ${row}, col ${col}`, options, () => {
      const c = this.screen.cursor;
      return c.row === row && c.col === col;
    });
  }

  /** Waits until the program wrote nothing for `idleMs` (or has exited). */
  waitForIdle(idleMs: number, options: WaitOptions = {}): Promise<{ timedOut: false; idleMs: number; capturedAtSeq: number }> {
    validateDuration('idleMs', idleMs);
    let idleTimer: NodeJS.Timeout | undefined;
    type R = { timedOut: false; idleMs: number; capturedAtSeq: number };
    const settled = (ctx: WaitContext<R>) => void this.screen.flush().then(() => ctx.resolve({ timedOut: false, idleMs, capturedAtSeq: this.renderedSeq }));
    const arm = (ctx: WaitContext<R>) => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => settled(ctx), idleMs);
    };
    return this.wait<R>(`${idleMs} ms without output`, options, {
      start: (ctx) => (this.exitInfo ? settled(ctx) : arm(ctx)),
      output: arm,
      exit: settled,
      cleanup: () => clearTimeout(idleTimer),
    });
  }

  /** Waits until the visible screen (text, cursor, alt screen) stayed the same for `stableMs`. */
  waitForStable(stableMs: number, options: WaitOptions = {}): Promise<ScreenWaitResult> {
    validateDuration('stableMs', stableMs);
    let timer: NodeJS.Timeout | undefined;
    let frame = '';
    const arm = (ctx: WaitContext<ScreenWaitResult>) => {
      clearTimeout(timer);
      frame = this.screen.frameKey();
      // Stable = the frame when the timer fires is identical to the one when it was armed.
      timer = setTimeout(() => (this.screen.frameKey() === frame ? ctx.resolve(this.screenResult()) : arm(ctx)), stableMs);
    };
    return this.wait<ScreenWaitResult>(`the screen to be stable for ${stableMs} ms`, options, {
      start: arm,
      screen: (ctx) => {
        if (this.screen.frameKey() !== frame) arm(ctx);
      },
      exit: (ctx) => ctx.resolve(this.screenResult()),
      cleanup: () => clearTimeout(timer),
    });
  }

  /** Waits for the program to end; resolves with its exit code and signal. */
  waitForExit(options: WaitOptions = {}): Promise<TerminalExit> {
    return this.wait<TerminalExit>('the program to exit', options, {
      start: (ctx) => void this.exited.then((exit) => ctx.resolve(exit)),
    });
  }
}

function validateSize(rows: number, cols: number): void {
  for (const [name, n] of [['rows', rows], ['cols', cols]] as const) {
    if (!Number.isInteger(n) || n < 1 || n > 10_000) {
      throw new TapedeckError('INVALID_DIMENSIONS', `${name} must be a whole number from 1 to 10000, got ${n}`, { exitCode: ExitCode.usage });
    }
  }
}
