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
