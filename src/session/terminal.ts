import { killSession } from '../plumbing/process/group.js';
import { constants } from 'node:os';
import { TapedeckError } from '../core/diagnostics/errors.js';
import { Screen, type SnapshotOptions } from './screen/screen.js';
import { pinnedEnv } from './pty/env.js';
import { EventLog, type InputKind, type TerminalEvent } from './events.js';
import { PlainOutput } from './screen/plain-output.js';
import { encodeKeys } from './input/keys.js';
import { mouseAction, pointerBytes, type MouseOptions, type MouseResult, type PointerEvent, type WheelDirection } from './input/mouse.js';
import { PtyProcess, type PtyExit } from './pty/pty.js';
import { trackProcess } from './registry.js';
import { noteOwner } from './owner.js';
import { checkWorkingDirectory, resolveCommand } from './pty/resolve-command.js';
import { normaliseSignal } from './pty/signals.js';
import type { InputResult, KeysResult, ScreenWaitResult, SpawnOptions, TerminalExit, TerminalSnapshot } from './terminal-types.js';
import { TerminalWaits } from './terminal-waits.js';
import type { WaitOptions } from './waits.js';

export type { InputResult, KeysResult, ScreenWaitResult, SpawnOptions, TerminalExit, TerminalSnapshot } from './terminal-types.js';

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
  readonly events: EventLog;
  /** Settles once the program ended and all its output is on the screen (lazyScreen: handed to it, see SpawnOptions). */
  readonly exited: Promise<TerminalExit>;
  private readonly child: PtyProcess;
  private readonly untrack: () => void;
  private readonly waits: TerminalWaits;
  private exitInfo: TerminalExit | null = null;
  private renderedSeq = 0;
  private resolveExited!: (exit: TerminalExit) => void;
  private disposed = false;
  private sessionEnded = false;
  /** Built on first use under lazyScreen: a recording of plain output never loads xterm nor pays for a screen. */
  private headlessScreen?: Screen;
  private readonly buildScreen: () => Screen;
  private readonly size: { rows: number; cols: number };
  /** lazyScreen: plain output not yet handed to the screen. */
  private readonly plain?: PlainOutput;

  constructor(command: string, args: string[], options: SpawnOptions) {
    const rows = options.rows ?? 24;
    const cols = options.cols ?? 80;
    validateSize(rows, cols);
    const cwd = options.cwd ?? process.cwd();
    const env = pinnedEnv({ rows, cols, term: options.term, env: options.env, base: options.baseEnv });
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
    noteOwner(this);
    this.size = { rows, cols };
    this.buildScreen = () => {
      const screen = new Screen({ rows, cols, scrollback: options.scrollback });
      // Programs such as vim query the terminal and may stall without an answer. Under
      // lazyScreen the first chunk that is not plain builds it, before a query can arrive.
      if (options.answerQueries ?? true) {
        screen.xterm.onData((reply) => {
          if (this.running) this.send('reply', Buffer.from(reply, 'utf8'));
        });
        screen.xterm.onBinary((reply) => {
          if (this.running) this.send('reply', Buffer.from(reply, 'latin1'));
        });
      }
      return screen;
    };
    if (options.lazyScreen) this.plain = new PlainOutput();
    else this.headlessScreen = this.buildScreen();
    const self = this; // the waits read these live (private members are reachable from the class body)
    this.waits = new TerminalWaits({
      get screen() { return self.screen; }, // prettier-ignore
      get exitInfo() { return self.exitInfo; }, // prettier-ignore
      get renderedSeq() { return self.renderedSeq; }, // prettier-ignore
      exited: this.exited,
    });
  }

  private get headless(): Screen {
    if (!this.headlessScreen) {
      this.headlessScreen = this.buildScreen();
      if (this.disposed) this.headlessScreen.dispose(); // as an eager screen would be after dispose(): nothing left open
    }
    return this.headlessScreen;
  }

  get pid(): number {
    return this.child.pid;
  }

  /** The headless screen, with all output so far handed to it (xterm parses asynchronously: await snapshot() or text() to read it settled). */
  get screen(): Screen {
    this.feedHeld();
    return this.headless;
  }

  // A resize builds the screen, so without one the size is still the spawn size.
  get rows(): number { return this.headlessScreen?.rows ?? this.size.rows; } // prettier-ignore
  get cols(): number { return this.headlessScreen?.cols ?? this.size.cols; } // prettier-ignore
  get running(): boolean { return this.exitInfo === null; } // prettier-ignore

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
    this.waits.output();
    // Held only while nothing waits on the screen; the first read hands it over.
    if (this.plain?.offer(chunk, event.seq, !this.waits.watching)) return;
    this.feedHeld();
    this.draw(chunk, event.seq);
  }

  private draw(data: Buffer, seq: number): void {
    void this.headless.write(data).then(() => {
      this.renderedSeq = seq;
      this.waits.screen();
    });
  }

  private feedHeld(): void {
    const held = this.plain?.take();
    if (held) this.draw(held.data, held.seq);
  }

  private async onExit(exit: PtyExit): Promise<void> {
    // Held plain output stays held (a recorder never reads it); a later read of the screen hands it over.
    await this.headlessScreen?.flush();
    const info: TerminalExit = { exitCode: exit.exitCode, signal: exit.signal ? SIGNAL_NAMES.get(exit.signal) ?? String(exit.signal) : null };
    this.exitInfo = info;
    this.untrack();
    this.events.append({ type: 'exit', exitCode: info.exitCode, signal: info.signal });
    this.waits.exit();
    this.resolveExited(info);
  }

  // ---- input -------------------------------------------------------------

  private send(kind: InputKind, bytes: Buffer, extra: { keys?: string[]; text?: string; mouse?: string } = {}): InputResult {
    if (!this.running) {
      throw new TapedeckError('SESSION_NOT_RUNNING', `cannot send input: ${this.command} has exited (code ${this.exitCode})`);
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
  press(...keys: import('./input/key-names.js').KeyName[]): KeysResult {
    const bytes = Buffer.from(encodeKeys(keys, this.screen.modes), 'utf8');
    return { accepted: keys, ...this.send('keys', bytes, { keys }) };
  }

  /** Writes bytes exactly as given (used to replay recorded input). */
  write(bytes: Buffer | string): InputResult {
    return this.send('raw', typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes);
  }

  // ---- mouse (input/mouse.ts): bytes as xterm sends them for the mode the program enabled; none while it enabled none

  /** Clicks a button (press and release) on the cell at (row, col), 0-based as snapshots number cells. */
  click(row: number, col: number, options: MouseOptions = {}): MouseResult {
    return this.pointer(mouseAction('click', this, [{ row, col }], options));
  }
  /** Presses at `from`, moves through `steps` cells (default 1) to `to` with the button held, releases there. */
  drag(from: { row: number; col: number }, to: { row: number; col: number }, options: MouseOptions & { steps?: number } = {}): MouseResult {
    return this.pointer(mouseAction('drag', this, [from, to], options));
  }
  /** Turns the wheel `count` notches (default 1) with the pointer on (row, col). */
  scroll(row: number, col: number, direction: WheelDirection, options: Omit<MouseOptions, 'button'> & { count?: number } = {}): MouseResult {
    return this.pointer(mouseAction('scroll', this, [{ row, col }], { ...options, direction }));
  }
  /** Moves the pointer to (row, col) with no button held (reported only under any-event tracking, DECSET 1003). */
  mouseMove(row: number, col: number, options: Omit<MouseOptions, 'button'> = {}): MouseResult {
    return this.pointer(mouseAction('move', this, [{ row, col }], options));
  }

  private pointer(action: { events: PointerEvent[]; description: string }): MouseResult {
    const modes = this.screen.mouseModes;
    const { bytes, events } = pointerBytes(action.events, modes);
    if (events > 0 || !this.running) return { sent: true, ...this.send('mouse', bytes, { mouse: action.description }), ...modes, events }; // exited: send throws
    return { sent: false, bytesWritten: 0, ...modes, events };
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
      throw new TapedeckError('SESSION_NOT_RUNNING', `cannot send ${signal}: ${this.command} has exited`);
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
   * SIGKILL if it is still there after `graceMs`. Resolves once it has exited,
   * and nothing it started in its terminal's session (background jobs) is left.
   */
  async kill(graceMs = 1000): Promise<TerminalExit> {
    if (this.exitInfo) {
      this.endSession();
      return this.exitInfo;
    }
    await this.child.close();
    const timer = setTimeout(() => this.child.signalGroup('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
      this.endSession();
    }
  }

  /** Ends what is left in the terminal's session, once: a SIGKILLed member cannot start another. */
  private endSession(): void {
    if (this.sessionEnded) return;
    this.sessionEnded = true;
    killSession(this.child.pid, 'SIGKILL');
  }

  /** Kills the program if needed and frees the PTY and the screen. Safe to call twice. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.kill();
    this.child.destroy();
    this.headlessScreen?.dispose();
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

  // ---- waits (terminal-waits.ts) -------------------------------------------

  /** Waits until the visible screen contains `pattern` (a literal string or a RegExp). */
  waitForText(pattern: string | RegExp, options: WaitOptions = {}): Promise<ScreenWaitResult> {
    return this.waits.waitForText(pattern, options);
  }

  waitForRegex(pattern: RegExp, options: WaitOptions = {}): Promise<ScreenWaitResult> {
    return this.waits.waitForRegex(pattern, options);
  }

  /** Waits until the cursor is at (row, col), 0-based. */
  waitForCursor(row: number, col: number, options: WaitOptions = {}): Promise<ScreenWaitResult> {
    return this.waits.waitForCursor(row, col, options);
  }

  /** Waits until the program wrote nothing for `idleMs` (or has exited). */
  waitForIdle(idleMs: number, options: WaitOptions = {}): Promise<{ timedOut: false; idleMs: number; capturedAtSeq: number }> {
    return this.waits.waitForIdle(idleMs, options);
  }

  /** Waits until the visible screen (text, cursor, alt screen) stayed the same for `stableMs`. */
  waitForStable(stableMs: number, options: WaitOptions = {}): Promise<ScreenWaitResult> {
    return this.waits.waitForStable(stableMs, options);
  }

  /** Waits for the program to end; resolves with its exit code and signal. */
  waitForExit(options: WaitOptions = {}): Promise<TerminalExit> {
    return this.waits.waitForExit(options);
  }
}

function validateSize(rows: number, cols: number): void {
  for (const [name, n] of [['rows', rows], ['cols', cols]] as const) {
    if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new TapedeckError('INVALID_DIMENSIONS', `${name} must be a whole number from 1 to 10000, got ${n}`);
  }
}
