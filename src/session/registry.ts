import { killGroup } from './pty.js';

/**
 * Every terminal still running in this process. A process 'exit' hook kills
 * what is left, so no child outlives a test run or a CLI invocation even when
 * the caller forgot dispose() or crashed.
 */
const live = new Set<{ pid: number }>();
let hooked = false;

export function trackProcess(child: { pid: number }): () => void {
  if (!hooked) {
    hooked = true;
    process.on('exit', killAllTracked);
  }
  live.add(child);
  return () => live.delete(child);
}

export function trackedCount(): number {
  return live.size;
}

/** Synchronous, as 'exit' handlers must be. */
export function killAllTracked(): void {
  for (const child of live) killGroup(child.pid, 'SIGKILL');
  live.clear();
}

/** The children running now (the vitest integration kills those a test left behind). */
export function trackedChildren(): ReadonlySet<{ pid: number }> {
  return live;
}
