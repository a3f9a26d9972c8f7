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
 * that starts after the resize. A program that was writing when the resize
 * went out (output within BURST_GAP_MS before it) gets every repeat: its
 * answer cannot be told from the rest of its stream (a pause in it under load
 * looked like one, and a program that missed the signal kept its old frame;
 * tig missed 8 of 200 replayed resizes so), and an extra SIGWINCH only
 * makes a program that did see the resize draw the same frame again.
 */
export class ResizeResignal {
  private timers: NodeJS.Timeout[] = [];
  private lastOutput = -Infinity;
  /** The program was writing when the resize went out: no output counts as its answer. */
  private writingWhenResized = false;

  constructor(private readonly resignal: () => void, private readonly now: () => number = () => performance.now()) {}

  /** A resize just went to the PTY. */
  resized(): void {
    this.cancel();
    this.writingWhenResized = this.now() - this.lastOutput < BURST_GAP_MS;
    this.timers = RESIGNAL_AFTER_MS.map((ms) => setTimeout(() => this.resignal(), ms).unref());
  }

  /** The program wrote something: an answer (it is awake and saw the resize), unless it was writing all along. */
  output(): void {
    this.lastOutput = this.now();
    if (this.timers.length === 0 || this.writingWhenResized) return;
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
