import { procStat } from '../../core/process-identity.js';

/**
 * When a resize brought no output, how long after it the program gets its
 * SIGWINCH again (ms from the resize). A few, backing off, then it is left alone:
 * a program that draws nothing on a resize (a shell at its prompt) only gets
 * these few extra signals, which change nothing for it.
 */
export const RESIGNAL_AFTER_MS = [100, 300, 1000] as const;

/** Output closer than this to the output before it is the same burst (a frame being written). */
export const BURST_GAP_MS = 30;

/**
 * A PTY resize sends the program one SIGWINCH, and a program can miss it:
 * ncurses checks its SIGWINCH flag and then blocks in read(), so a signal
 * landing between the two is handled but nothing wakes the read until the
 * next key. Python curses missed 13 of 100 resizes this way on a loaded
 * 2-core machine (and a window manager resizing a real terminal sends many,
 * so users rarely see it). So a resize that no answer follows is signalled
 * again, to the terminal's foreground process group. The answer is output
 * that starts after the resize: output still under way when the resize went
 * out (the rest of the frame the program was writing, with gaps under
 * BURST_GAP_MS) does not count, or a program that missed the signal would
 * keep its old frame for good (tig missed 8 of 200 replayed resizes so).
 */
export class ResizeResignal {
  private timers: NodeJS.Timeout[] = [];
  private lastOutput = -Infinity;
  /** The program was writing when the resize went out, and has not paused since. */
  private burstUnderWay = false;

  constructor(private readonly resignal: () => void, private readonly now: () => number = () => performance.now()) {}

  /** A resize just went to the PTY. */
  resized(): void {
    this.cancel();
    this.burstUnderWay = this.now() - this.lastOutput < BURST_GAP_MS;
    this.timers = RESIGNAL_AFTER_MS.map((ms) => setTimeout(() => this.fire(), ms).unref());
  }

  private fire(): void {
    this.burstUnderWay = false; // what comes after a signal we sent is an answer to it
    this.resignal();
  }

  /** The program wrote something: an answer (it is awake and saw the resize), unless it is the burst the resize interrupted. */
  output(): void {
    const now = this.now();
    const gap = now - this.lastOutput;
    this.lastOutput = now;
    if (this.timers.length === 0) return;
    if (this.burstUnderWay && gap < BURST_GAP_MS) return;
    this.burstUnderWay = false;
    this.cancel();
  }

  cancel(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
  }
}

/**
 * The foreground process group of `pid`'s controlling terminal (the `tpgid`
 * field of /proc/PID/stat): the job that reads the terminal, which is where the
 * kernel sends a resize's SIGWINCH. Undefined when it cannot be read.
 */
export function foregroundGroup(pid: number): number | undefined {
  const tpgid = Number(procStat(pid)?.[5]);
  return Number.isInteger(tpgid) && tpgid > 0 ? tpgid : undefined;
}
