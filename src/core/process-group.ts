import { readdirSync, readFileSync } from 'node:fs';

/**
 * Programs under test run as the leaders of their own process groups, so everything
 * they start can be ended with them. One place kills a group and remembers the groups
 * still running, so that none outlive this process.
 */

/** Sends `signal` to the group led by `pid` (and to `pid` itself, in case it left the group). */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Signals every process left in session `sid` after its leader exited (a program in
 * a PTY leads its own session). A shell's background jobs sit in process groups of
 * their own: the shell hangs them up when the terminal goes away, but a shell killed
 * before it got to (a loaded machine, the SIGKILL after the grace period) leaves them
 * running. While any member is left the kernel keeps the number `sid` from a new
 * process; a live process with that pid is a new session of someone else's, so then
 * nothing is signalled. Reads /proc; where there is none, does nothing.
 */
export function killSession(sid: number | undefined, signal: NodeJS.Signals): void {
  if (!sid || runningPerProc(sid)) return;
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(procStat(Number(name))?.[3]) !== sid) continue;
    try {
      process.kill(Number(name), signal);
    } catch {
      // Gone since, or not ours.
    }
  }
}

const liveGroups = new Set<number>();
let exitHooked = false;

/** Kills the group with SIGKILL when this process exits, unless the returned function is called first. */
export function trackGroup(pid: number | undefined): () => void {
  if (pid === undefined) return () => {};
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', () => {
      for (const group of liveGroups) killGroup(group, 'SIGKILL');
    });
  }
  liveGroups.add(pid);
  return () => liveGroups.delete(pid);
}

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
function runningPerProc(pid: number): boolean {
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
