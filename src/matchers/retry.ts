/**
 * Web-first assertions, as Playwright has them: a matcher that reads a live
 * screen retries until its condition holds (or, under .not, stops holding) or
 * the timeout passes. Polls on a short interval; never sleeps a fixed time
 * once the condition is met.
 */
export const DEFAULT_ASSERTION_TIMEOUT_MS = 5000;
const POLL_MS = [20, 50, 100, 100, 250];

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
