import type { Screen } from './screen/screen.js';
import type { ScreenWaitResult, TerminalExit } from './terminal-types.js';
import { DEFAULT_WAIT_TIMEOUT_MS, exitedWhileWaitingError, validateDuration, waitTimeoutError, type WaitOptions } from './waits.js';

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

/** What the waits read from the terminal they watch. */
export interface WaitSource {
  readonly screen: Screen;
  /** Set once the program ended and its last output is on the screen. */
  readonly exitInfo: TerminalExit | null;
  /** Seq of the last output event on the screen. */
  readonly renderedSeq: number;
  readonly exited: Promise<TerminalExit>;
}

/**
 * A terminal's waits: every condition is checked when it starts, after each
 * parsed output, on raw output (idle waits) and at exit; none sleeps for a
 * fixed time. The terminal calls screen(), output() and exit() as things happen.
 */
export class TerminalWaits {
  private readonly watchers = new Set<Watcher>();

  constructor(private readonly source: WaitSource) {}

  /** Some wait is in progress. */
  get watching(): boolean {
    return this.watchers.size > 0;
  }

  /** New output is on the screen. */
  screen(): void {
    for (const w of this.watchers) w.screen();
  }

  /** Output bytes arrived (before parsing). */
  output(): void {
    for (const w of this.watchers) w.output();
  }

  /** The program exited and its last bytes are on the screen. */
  exit(): void {
    for (const w of this.watchers) w.exit();
  }

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
        () => ctx.reject(waitTimeoutError(what, timeoutMs, this.source.screen.text(), { capturedAtSeq: this.source.renderedSeq })),
        timeoutMs,
      );
      this.watchers.add(watcher);
      hooks.start?.(ctx);
    });
  }

  private screenResult(matchedText?: string): ScreenWaitResult {
    const c = this.source.screen.cursor;
    return { matched: true, timedOut: false, ...(matchedText === undefined ? {} : { matchedText }), cursorRow: c.row, cursorCol: c.col, capturedAtSeq: this.source.renderedSeq };
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
        if (this.source.exitInfo) ctx.reject(exitedWhileWaitingError(what, this.source.screen.text(), this.source.exitInfo));
      },
      screen: check,
      exit: (ctx) => {
        if (!check(ctx) && this.source.exitInfo) ctx.reject(exitedWhileWaitingError(what, this.source.screen.text(), this.source.exitInfo));
      },
    });
  }

  /** Waits until the visible screen contains `pattern` (a literal string or a RegExp). */
  waitForText(pattern: string | RegExp, options: WaitOptions = {}): Promise<ScreenWaitResult> {
    if (typeof pattern !== 'string') return this.waitForRegex(pattern, options);
    return this.waitForScreen(`text ${JSON.stringify(pattern)}`, options, () => (this.source.screen.text().includes(pattern) ? pattern : false));
  }

  waitForRegex(pattern: RegExp, options: WaitOptions = {}): Promise<ScreenWaitResult> {
    return this.waitForScreen(`regex ${pattern}`, options, () => {
      pattern.lastIndex = 0;
      const m = pattern.exec(this.source.screen.text());
      return m ? m[0] : false;
    });
  }

  /** Waits until the cursor is at (row, col), 0-based. */
  waitForCursor(row: number, col: number, options: WaitOptions = {}): Promise<ScreenWaitResult> {
    return this.waitForScreen(`cursor at row ${row}, col ${col}`, options, () => {
      const c = this.source.screen.cursor;
      return c.row === row && c.col === col;
    });
  }

  /** Waits until the program wrote nothing for `idleMs` (or has exited). */
  waitForIdle(idleMs: number, options: WaitOptions = {}): Promise<{ timedOut: false; idleMs: number; capturedAtSeq: number }> {
    validateDuration('idleMs', idleMs);
    let idleTimer: NodeJS.Timeout | undefined;
    type R = { timedOut: false; idleMs: number; capturedAtSeq: number };
    const settled = (ctx: WaitContext<R>) => void this.source.screen.flush().then(() => ctx.resolve({ timedOut: false, idleMs, capturedAtSeq: this.source.renderedSeq }));
    const arm = (ctx: WaitContext<R>) => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => settled(ctx), idleMs);
    };
    return this.wait<R>(`${idleMs} ms without output`, options, {
      start: (ctx) => (this.source.exitInfo ? settled(ctx) : arm(ctx)),
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
      frame = this.source.screen.frameKey();
      // Stable = the frame when the timer fires is identical to the one when it was armed.
      timer = setTimeout(() => (this.source.screen.frameKey() === frame ? ctx.resolve(this.screenResult()) : arm(ctx)), stableMs);
    };
    return this.wait<ScreenWaitResult>(`the screen to be stable for ${stableMs} ms`, options, {
      start: arm,
      screen: (ctx) => {
        if (this.source.screen.frameKey() !== frame) arm(ctx);
      },
      exit: (ctx) => ctx.resolve(this.screenResult()),
      cleanup: () => clearTimeout(timer),
    });
  }

  /** Waits for the program to end; resolves with its exit code and signal. */
  waitForExit(options: WaitOptions = {}): Promise<TerminalExit> {
    return this.wait<TerminalExit>('the program to exit', options, {
      start: (ctx) => void this.source.exited.then((exit) => ctx.resolve(exit)),
    });
  }
}
