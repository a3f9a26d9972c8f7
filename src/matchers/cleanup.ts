import { killGroup } from '../plumbing/process/group.js';
import { childrenOwnedBy, trackedChildren } from '../session/registry.js';

/**
 * Terminals a test spawned are ended when that test ends, passed or failed,
 * so no program outlives its test (and none the suite). Each test runs inside
 * its own terminal owner (see matchers/index.ts), so under test.concurrent a
 * finishing test ends only its own terminals.
 */
export async function endTerminalsOf(owner: object): Promise<void> {
  await endAll(childrenOwnedBy(owner));
}

/** Without per-test owners (vitest before 4.1 has no aroundEach): what started during the test, as before. */
let before = new Set<{ pid: number }>();
export function rememberTerminalsBeforeTest(): void {
  before = new Set(trackedChildren());
}
export async function cleanUpTestTerminals(): Promise<void> {
  await endAll([...trackedChildren()].filter((c) => !before.has(c)));
}

async function endAll(children: { pid: number }[]): Promise<void> {
  for (const child of children) killGroup(child.pid, 'SIGKILL');
  // Wait (bounded) for the exit handlers, so the children are reaped before the next test.
  const deadline = Date.now() + 2000;
  while (children.some((c) => trackedChildren().has(c)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}
