import { formatScreenGolden, type ScreenMask } from '../render/golden-text.js';
import { escapeControl } from './format.js';
import { matchGolden } from './golden-match.js';
import { matcherDefaults } from './context.js';
import { assertTerminal, type MatchResult, type State } from './terminal.js';

export interface ScreenGoldenMatcherOptions {
  /** Add the style layer (colours by palette slot, attributes). */
  styles?: boolean;
  /** Volatile regions: regexes over line text, or {row, col, width, height} rectangles. */
  mask?: ScreenMask[];
  /** Golden name instead of the test name. */
  name?: string;
  /** Without a golden (or under -u): how long the screen must stay unchanged before it is stored (default 100 ms). */
  stableMs?: number;
  /** How long to retry until the screen equals the golden (default 5 s, within the test's own timeout). */
  timeoutMs?: number;
  /** Store the screen of a program that ended in failure (non-zero exit code or a signal) as a golden; by default that fails. */
  allowExit?: boolean;
}

/** expect(term).toMatchScreen(): retries until the screen equals goldens/<test file>/<test name>.txt. */
export async function toMatchScreen(this: State, received: unknown, given: ScreenGoldenMatcherOptions = {}): Promise<MatchResult> {
  assertTerminal(received, 'toMatchScreen');
  const options: ScreenGoldenMatcherOptions = { ...matcherDefaults<ScreenGoldenMatcherOptions>(this.testPath, 'toMatchScreen'), ...given };
  if (this.isNot) throw new Error('toMatchScreen cannot be negated: compare with a golden, or use .not.toContainText');
  const term = received;
  const result = await matchGolden({
    ctx: this,
    matcher: 'toMatchScreen',
    term,
    ext: 'txt',
    text: true,
    allowExit: options.allowExit,
    name: options.name,
    stableMs: options.stableMs,
    timeoutMs: options.timeoutMs,
    capture: async () => Buffer.from(formatScreenGolden(await term.snapshot({ includeCells: options.styles === true }), { styles: options.styles, mask: options.mask }), 'utf8'),
    compare: (expected, actual, shown) => ({
      pass: false,
      message: `screen differs from golden ${shown}\n\n${this.utils.diff(escapeControl(expected.toString('utf8')), escapeControl(actual.toString('utf8'))) ?? ''}`,
    }),
  });
  return { pass: result.pass, message: () => result.message };
}
