import { killGroup } from '../plumbing/process/group.js';
import { terminalOwner } from './owner.js';

/**
 * Every terminal still running in this process. A process 'exit' hook kills
 * what is left, so no child outlives a test run or a CLI invocation even when
 * the caller forgot dispose() or crashed.
 */
const live = new Set<{ pid: number }>();
/** The test (or other owner) each child was spawned under, when there was one. */
const ownerOf = new WeakMap<{ pid: number }, object>();
let hooked = false;

export function trackProcess(child: { pid: number }): () => void {
  if (!hooked) {
    hooked = true;
    process.on('exit', killAllTracked);
  }
  live.add(child);
  const owner = terminalOwner.getStore();
  if (owner) ownerOf.set(child, owner);
  return () => live.delete(child);
}

/** The children still running that were spawned under `owner`. */
export function childrenOwnedBy(owner: object): { pid: number }[] {
  return [...live].filter((c) => ownerOf.get(c) === owner);
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
