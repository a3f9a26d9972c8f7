import { killGroup } from '../session/pty.js';
import { trackedChildren } from '../session/registry.js';

/**
 * Terminals a test spawned are ended when the test ends, passed or failed, so
 * no program outlives its test (and none the suite). Tests in one file run one
 * after another by default; under test.concurrent a terminal is ended with the
 * first test that finishes after it started.
 */
let before = new Set<{ pid: number }>();

export function rememberTerminalsBeforeTest(): void {
  before = new Set(trackedChildren());
}

export async function cleanUpTestTerminals(): Promise<void> {
  const leftovers = [...trackedChildren()].filter((c) => !before.has(c));
  for (const child of leftovers) killGroup(child.pid, 'SIGKILL');
  // Give the exit handlers a moment to run, so the children are reaped before the next test.
  const deadline = Date.now() + 2000;
  while (leftovers.some((c) => trackedChildren().has(c)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}
