import type { Terminal } from '../../session/terminal.js';

export interface ScreenWaitOutcome {
  matched: boolean;
  /** The live key when the wait ended (the matching one, or the last seen). */
  key: string;
  /** The program had ended and its screen could not change any more. */
  exited: boolean;
  waitedMs: number;
}

export interface ScreenWaitOptions {
  timeoutMs: number;
  /**
   * Give up early once the screen has not changed for this long. Only used
   * after a tape already drifted, so later steps of a broken replay do not
   * each cost a full timeout; a clean replay always waits the whole timeout.
   */
  giveUpWhenStableMs?: number;
}

/**
 * Waits until `keyOf()` (the live screen in the comparison form) is one of
 * `accepted`. Reacts to output instead of polling on a clock: the screen is
 * checked now, after each burst of parsed output, and once more when the
 * program ends (after which nothing can change, so the wait ends too).
 */
export function waitForScreenKey(terminal: Terminal, keyOf: () => string, accepted: readonly string[], options: ScreenWaitOptions): Promise<ScreenWaitOutcome> {
  const started = performance.now();
  const wanted = new Set(accepted);
  return new Promise((resolve) => {
    let done = false;
    let key = '';
    let checking = false;
    let recheck = false;
    let stableTimer: NodeJS.Timeout | undefined;
    const finish = (matched: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(stableTimer);
      unsubscribe();
      resolve({ matched, key, exited: !terminal.running, waitedMs: performance.now() - started });
    };
    const armStable = () => {
      if (options.giveUpWhenStableMs === undefined) return;
      clearTimeout(stableTimer);
      stableTimer = setTimeout(() => finish(false), options.giveUpWhenStableMs);
    };
    // One check at a time; output arriving meanwhile triggers one more pass.
    const check = async () => {
      if (checking) {
        recheck = true;
        return;
      }
      checking = true;
      do {
        recheck = false;
        await terminal.screen.flush();
        if (done) return;
        const previous = key;
        key = keyOf();
        if (wanted.has(key)) return finish(true);
        if (key !== previous) armStable();
      } while (recheck);
      checking = false;
      if (!terminal.running) finish(false);
    };
    const unsubscribe = terminal.onEvent((event) => {
      if (event.type === 'output' || event.type === 'exit') void check();
    });
    const timer = setTimeout(() => finish(false), options.timeoutMs);
    void check();
  });
}

/** Resolves with the exit, or undefined after `timeoutMs`. */
export function exitWithin<T>(exited: Promise<T>, timeoutMs: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
  return Promise.race([exited, timeout]).finally(() => clearTimeout(timer));
}

/** Bounds on the quiet awaited around a resize (the recorded quiet, clamped): enough to tell a frame under way, never a human pause. */
export const QUIET_MIN_MS = 30;
export const QUIET_MAX_MS = 150;

/**
 * Waits until the program wrote nothing for as long as the recording showed
 * before the step (`recordedQuietMs`, clamped to QUIET_MIN_MS..QUIET_MAX_MS).
 * A program still writing after `timeoutMs` is acted on anyway (its screen
 * wait already passed).
 */
export async function waitForQuiet(terminal: Terminal, recordedQuietMs: number, timeoutMs: number): Promise<void> {
  const idleMs = Math.min(QUIET_MAX_MS, Math.max(QUIET_MIN_MS, recordedQuietMs));
  await terminal.waitForIdle(idleMs, { timeoutMs }).catch(() => undefined);
}
