import { readdirSync } from 'node:fs';
import { procStat, runningPerProc } from '../../core/process-identity.js';

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
