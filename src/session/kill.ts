/** The child is a session leader, so its pid is its process group id. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
    } catch {
      // gone already
    }
  }
}
