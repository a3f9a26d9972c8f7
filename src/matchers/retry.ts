import type { TaskLike } from './context.js';

/**
 * Web-first assertions, as Playwright has them: a matcher that reads a live
 * screen retries until its condition holds (or, under .not, stops holding) or
 * the timeout passes. Polls on a short interval; never sleeps a fixed time
 * once the condition is met.
 */
export const DEFAULT_ASSERTION_TIMEOUT_MS = 5000;
const POLL_MS = [20, 50, 100, 100, 250];

/**
 * The default assertion timeout: 5 s, but always ending before the running
 * test's own timeout, so the matcher's message (the screen) is what the user
 * sees rather than vitest's bare "Test timed out". The margin is a tenth of the
 * test's timeout, between 250 ms and 2 s.
 */
export function assertionTimeout(explicit: number | undefined, task: TaskLike | undefined, now = Date.now()): number {
  if (explicit !== undefined) return explicit;
  const limit = task?.timeout;
  const started = task?.result?.startTime;
  if (!limit || !Number.isFinite(limit) || limit <= 0 || started === undefined) return DEFAULT_ASSERTION_TIMEOUT_MS;
  const margin = Math.min(2000, Math.max(250, limit / 10));
  const left = started + limit - margin - now;
  return Math.max(100, Math.min(DEFAULT_ASSERTION_TIMEOUT_MS, left));
}

export interface Probe<T> {
  pass: boolean;
  value: T;
}

export async function retryUntil<T>(
  probe: () => Promise<Probe<T>>,
  options: { isNot: boolean; timeoutMs?: number; settled?: () => boolean },
): Promise<Probe<T> & { waitedMs: number }> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_ASSERTION_TIMEOUT_MS;
  const started = Date.now();
  const isNot = options.isNot === true; // vitest leaves isNot undefined outside .not
  for (let attempt = 0; ; attempt++) {
    const result = await probe();
    const waitedMs = Date.now() - started;
    // Done when the outcome is the wanted one (pass, or fail under .not), on timeout,
    // or when nothing can change any more (the program ended and its output is in).
    if (result.pass !== isNot || waitedMs >= timeoutMs || options.settled?.()) return { ...result, waitedMs };
    const delay = Math.min(POLL_MS[Math.min(attempt, POLL_MS.length - 1)], timeoutMs - waitedMs);
    await new Promise((r) => setTimeout(r, Math.max(delay, 1)));
  }
}
