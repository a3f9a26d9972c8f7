import { procStat } from '../../core/process-identity.js';

/**
 * When a resize brought no output, how long after it the program gets its
 * SIGWINCH again (ms from the resize). A few, backing off, then it is left alone:
 * a program that draws nothing on a resize (a shell at its prompt) only gets
 * these few extra signals, which change nothing for it.
 */
export const RESIGNAL_AFTER_MS = [100, 300, 1000] as const;

/**
 * A PTY resize sends the program one SIGWINCH, and a program can miss it:
 * ncurses checks its SIGWINCH flag and then blocks in read(), so a signal
 * landing between the two is handled but nothing wakes the read until the
 * next key. Python curses missed 13 of 100 resizes this way on a loaded
 * 2-core machine (and a window manager resizing a real terminal sends many,
 * so users rarely see it). So a resize that no output follows is signalled
 * again, to the terminal's foreground process group. Any output counts as the
 * answer, so a resize sent while the program is still writing is not repeated:
 * replays resize once the whole recorded screen shows (0 of 150 missed under
 * load, 11 of 150 without this; measured with the python curses fixture).
 */
export class ResizeResignal {
  private timers: NodeJS.Timeout[] = [];

  constructor(private readonly resignal: () => void) {}

  /** A resize just went to the PTY. */
  resized(): void {
    this.cancel();
    this.timers = RESIGNAL_AFTER_MS.map((ms) => setTimeout(() => this.resignal(), ms).unref());
  }

  /** The program wrote something: it is awake and saw the resize (or will, with the next read). */
  output(): void {
    if (this.timers.length > 0) this.cancel();
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
