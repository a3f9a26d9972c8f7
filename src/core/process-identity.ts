import { readFileSync } from 'node:fs';

/**
 * Who a pid is, read from /proc without signalling anything: whether it runs, when it started.
 * Locks and temp files record their owner's pid with this; process groups (plumbing/) kill by it.
 */

/**
 * The fields of /proc/PID/stat after the command name (which may hold spaces and
 * parentheses): [0] state, [1] ppid, [2] pgrp, [3] session, [5] tpgid, [19]
 * starttime. Undefined where it cannot be read (gone, or no /proc).
 */
export function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Whether /proc shows `pid` running (not a zombie), without signalling it at all. */
export function runningPerProc(pid: number): boolean {
  const state = procStat(pid)?.[0];
  return state !== undefined && state !== 'Z';
}

/** Whether a process is running: it exists (EPERM: someone else's) and is not a zombie waiting to be reaped. */
export function processAlive(pid: number | null | undefined): boolean {
  if (!pid || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // Zombies still answer kill(0): ask /proc whether it is really running (elsewhere, trust kill).
  return procStat(pid)?.[0] !== 'Z';
}

/** Linux counts process start times in clock ticks of 1/100 s (USER_HZ) since boot. */
const TICKS_PER_SECOND = 100;

/**
 * When `pid`'s process started (ms since the epoch, to within a second: the boot
 * time is whole seconds), from /proc; undefined where that cannot be read.
 */
export function processStartedAt(pid: number): number | undefined {
  try {
    const ticks = Number(procStat(pid)?.[19]);
    const boot = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    return Number.isFinite(ticks) && Number.isFinite(boot) ? boot * 1000 + (ticks * 1000) / TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `pid` is still a process that was already running at `knownAliveAt`
 * (when a record last saw it). A pid freed since can belong to a new process,
 * which must never be signalled in the old one's place. Without /proc, trusts the pid.
 */
export function sameProcessAsRecorded(pid: number, knownAliveAt: number): boolean {
  if (!processAlive(pid)) return false;
  const started = processStartedAt(pid);
  return started === undefined || started <= knownAliveAt + 1000;
}
