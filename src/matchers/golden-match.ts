import type { Terminal } from '../session/terminal.js';
import { GoldenStore, type GoldenResult, type GoldenVerdict } from '../core/golden/store.js';
import { nextGoldenPath, updatePolicyFor, type MatcherStateLike } from './context.js';
import { assertionTimeout, retryUntil } from './retry.js';
import { recordGolden } from './summary.js';

export interface GoldenMatchInput {
  ctx: MatcherStateLike;
  term: Terminal;
  ext: string;
  name?: string;
  stableMs?: number;
  timeoutMs?: number;
  /** The screen now, as the golden stores it. */
  capture: () => Promise<Buffer>;
  /** Compares a golden with a capture that is not byte-equal to it. */
  compare: (expected: Buffer, actual: Buffer, displayPath: string) => GoldenVerdict;
  /** On a mismatch that stays: write diagnostics (images) and name them. */
  onMismatch?: (expected: Buffer, actual: Buffer, golden: string) => string[];
}

/**
 * The golden comparison behind toMatchScreen and toMatchScreenshot, as
 * Playwright's toHaveScreenshot: with a golden, retry until the screen equals
 * it or the timeout ends, then fail with the last difference; without one (or
 * under -u) wait for a stable screen and store that.
 */
export async function matchGolden(input: GoldenMatchInput): Promise<GoldenResult> {
  const { ctx, term } = input;
  const policy = updatePolicyFor(ctx);
  const store = new GoldenStore(policy);
  const { path, displayPath } = nextGoldenPath(ctx, input.ext, input.name);
  const timeoutMs = assertionTimeout(input.timeoutMs, ctx.task);
  const expected = store.read(path);
  const judge = (actual: Buffer): GoldenVerdict => (expected === undefined ? { pass: false } : expected.equals(actual) ? { pass: true } : input.compare(expected, actual, displayPath));
  let actual: Buffer;
  let verdict: GoldenVerdict | undefined;
  if (expected === undefined || policy.mode === 'all') {
    // A screen the program has not drawn yet is not a golden: a slow start under load would otherwise
    // store a blank screen. Wait for its first visible character (a program that never draws one
    // still gets its blank golden, after the timeout).
    await term.waitForText(/\S/, { timeoutMs }).catch(() => undefined);
    await term.waitForStable(input.stableMs ?? 100, { timeoutMs });
    actual = await input.capture();
    verdict = expected === undefined ? undefined : judge(actual);
  } else {
    const outcome = await retryUntil(
      async () => {
        const now = await input.capture();
        const v = judge(now);
        return { pass: v.pass, value: { now, v } };
      },
      { isNot: false, timeoutMs, settled: () => !term.running },
    );
    actual = outcome.value.now;
    verdict = outcome.pass ? outcome.value.v : { pass: false, message: `${outcome.value.v.message ?? `differs from golden ${displayPath}`}\n(the last of the screens compared over ${outcome.waitedMs} ms)` };
  }
  const result = store.settle({
    path,
    displayPath,
    actual,
    verdict,
    onMismatch: expected && input.onMismatch ? () => input.onMismatch!(expected, actual, path) : undefined,
  });
  recordGolden(result, path);
  return result;
}
