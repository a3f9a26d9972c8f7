import type { Terminal } from '../session/terminal.js';
import { TapedeckError } from '../core/diagnostics/errors.js';
import { GoldenStore, type GoldenResult, type GoldenVerdict } from '../core/golden/store.js';
import { displayPath as shownPath, goldenOwner, nextGoldenPath, updatePolicyFor, type MatcherStateLike } from './context.js';
import { crashed, exitNote } from './exited.js';
import { assertionTimeout, retryUntil } from './retry.js';
import { recordGolden } from './summary.js';

export interface GoldenMatchInput {
  ctx: MatcherStateLike;
  /** The matcher's name, for messages. */
  matcher: string;
  term: Terminal;
  ext: string;
  name?: string;
  stableMs?: number;
  timeoutMs?: number;
  /** A text golden: line endings are normalised on read (a CRLF checkout matches). */
  text?: boolean;
  /** Store the screen of a program that exited with a failure (non-zero code or a signal) as a golden. */
  allowExit?: boolean;
  /** The screen now, as the golden stores it. */
  capture: () => Promise<Buffer>;
  /** What stability is judged on (default: capture): the screen with the masks applied, as the comparison sees it. */
  stableKey?: () => Promise<Buffer | string>;
  /** Compares a golden with a capture that is not byte-equal to it. */
  compare: (expected: Buffer, actual: Buffer, displayPath: string) => GoldenVerdict;
  /** On a mismatch that stays: write diagnostics (images) and name them. */
  onMismatch?: (expected: Buffer, actual: Buffer, golden: string) => string[];
}

/** CRLF (and lone CR) line ends as LF: git's autocrlf checkout of a text golden still matches. */
export function normaliseLineEnds(data: Buffer): Buffer {
  return data.includes(13) ? Buffer.from(data.toString('utf8').replace(/\r\n?/g, '\n'), 'utf8') : data;
}

const same = (a: Buffer | string, b: Buffer | string) => (typeof a === 'string' || typeof b === 'string' ? a.toString() === b.toString() : a.equals(b));

/**
 * Waits until `key` (the masked screen) has not changed for `stableMs`: a
 * masked spinner that redraws does not keep a golden from being stored.
 * Polls the screen on a short interval; ends early once the program exited.
 */
export async function waitForStableKey(term: Terminal, key: () => Promise<Buffer | string>, stableMs: number, timeoutMs: number): Promise<void> {
  const started = Date.now();
  let last = await key();
  let since = Date.now();
  for (;;) {
    if (!term.running) {
      await term.exited;
      return;
    }
    await new Promise((r) => setTimeout(r, Math.max(5, Math.min(20, stableMs / 4))));
    const now = await key();
    if (!same(now, last)) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= stableMs) return;
    if (Date.now() - started >= timeoutMs) {
      throw new TapedeckError('WAIT_TIMEOUT', `timed out after ${timeoutMs} ms waiting for the screen (with its masks applied) to be stable for ${stableMs} ms`, { details: { stableMs, timeoutMs } });
    }
  }
}

/**
 * The golden comparison behind toMatchScreen and toMatchScreenshot, as
 * Playwright's toHaveScreenshot: with a golden, retry until the screen equals
 * it or the timeout ends, then fail with the last difference; without one (or
 * under -u) wait for a stable screen and store that.
 */
export async function matchGolden(input: GoldenMatchInput): Promise<GoldenResult> {
  const { ctx, term } = input;
  const owner = goldenOwner(ctx, input.matcher, term);
  const policy = updatePolicyFor(ctx);
  const store = new GoldenStore(policy);
  const { path, displayPath } = nextGoldenPath(ctx, input.ext, input.name, owner);
  const timeoutMs = assertionTimeout(input.timeoutMs, owner.task ?? ctx.task);
  const raw = store.read(path);
  const expected = raw && input.text ? normaliseLineEnds(raw) : raw;
  const judge = (actual: Buffer): GoldenVerdict => (expected === undefined ? { pass: false } : expected.equals(actual) ? { pass: true } : input.compare(expected, actual, displayPath));
  let actual: Buffer;
  let verdict: GoldenVerdict | undefined;
  if (expected === undefined || policy.mode === 'all') {
    // A screen the program has not drawn yet is not a golden: a slow start under load would otherwise
    // store a blank screen. Wait for its first visible character (a program that never draws one
    // still gets its blank golden, after the timeout).
    await term.waitForText(/\S/, { timeoutMs }).catch(() => undefined);
    await waitForStableKey(term, input.stableKey ?? input.capture, input.stableMs ?? 100, timeoutMs);
    actual = await input.capture();
    verdict = expected === undefined ? undefined : judge(actual);
    const writing = verdict === undefined || !verdict.pass;
    if (writing && policy.mode !== 'none' && crashed(term) && !input.allowExit) {
      const result: GoldenResult = {
        pass: false,
        status: 'mismatch',
        message: `${input.matcher}: not ${expected === undefined ? 'writing' : 'rewriting'} golden ${displayPath} from this screen: the program had ended in failure.${await exitNote(term)}\n\nFix the program, or pass { allowExit: true } if this screen is the one to keep.`,
        artifacts: [],
      };
      recordGolden(result, path);
      return result;
    }
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
    verdict = outcome.pass
      ? outcome.value.v
      : { pass: false, message: `${outcome.value.v.message ?? `differs from golden ${displayPath}`}\n(the last of the screens compared over ${outcome.waitedMs} ms)${await exitNote(term)}` };
  }
  const result = store.settle({
    path,
    displayPath,
    actual,
    verdict,
    onMismatch: expected && input.onMismatch ? () => input.onMismatch!(expected, actual, path) : undefined,
  });
  if (result.status === 'written' && !term.running) {
    process.stderr.write(`tapedeck: wrote golden ${shownPath(path)} from the screen of a program that had exited (code ${term.exitCode})\n`);
  }
  recordGolden(result, path);
  return result;
}
