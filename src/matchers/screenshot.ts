import type { Terminal } from '../session/terminal.js';
import { screenshotTerminal } from '../render/screenshot/terminal.js';
import { formatScreenGolden, type ScreenMask } from '../render/golden-text.js';
import type { CursorMode } from '../render/browser/repaint.js';
import type { RenderProfile } from '../render/profiles.js';
import { comparePngs, describeMismatch, writeMismatchArtifacts, type PixelCompareOptions, type PixelComparison } from '../render/pixel/diff.js';
import { matchGolden } from './golden-match.js';
import { matcherDefaults } from './context.js';
import { assertTerminal, type MatchResult, type State } from './terminal.js';

export interface ScreenshotMatcherOptions extends PixelCompareOptions {
  /** Render profile name (reference-dark, reference-light; aliases dark, light) or object; default reference-dark. */
  profile?: string | RenderProfile;
  /** auto (default) follows the program; show/hide force the cursor. */
  cursor?: CursorMode;
  /** Volatile regions, painted over before rendering (rectangles of cells or regexes over line text). */
  mask?: readonly ScreenMask[];
  /** Golden name instead of the test name. */
  name?: string;
  /** Without a golden (or under -u): how long the screen must stay unchanged before it is stored (default 100 ms). */
  stableMs?: number;
  /** How long to retry until the screenshot matches the golden (default 5 s, within the test's own timeout). */
  timeoutMs?: number;
  /** Store the screen of a program that ended in failure (non-zero exit code or a signal) as a golden; by default that fails. */
  allowExit?: boolean;
}

/**
 * expect(term).toMatchScreenshot(options): renders the screen and retries
 * until the PNG matches goldens/<test file>/<test name>.png (written when
 * missing locally, never on CI, rewritten by -u). On a mismatch that stays,
 * `<golden>.actual.png` and `<golden>.diff.png` land beside it; they go when
 * the golden passes or is rewritten.
 */
export async function toMatchScreenshot(this: State, received: unknown, given: ScreenshotMatcherOptions = {}): Promise<MatchResult> {
  assertTerminal(received, 'toMatchScreenshot');
  const options: ScreenshotMatcherOptions = { ...matcherDefaults<ScreenshotMatcherOptions>(this.testPath, 'toMatchScreenshot'), ...given };
  if (this.isNot) throw new Error('toMatchScreenshot cannot be negated: compare with a golden instead');
  const term: Terminal = received;
  const last = new Map<Buffer, PixelComparison>();
  const result = await matchGolden({
    ctx: this,
    matcher: 'toMatchScreenshot',
    term,
    ext: 'png',
    allowExit: options.allowExit,
    // Stability on the masked text (a masked spinner never holds it up): cheap, unlike a render.
    stableKey: async () => formatScreenGolden(await term.snapshot(), { mask: options.mask ? [...options.mask] : undefined }),
    name: options.name,
    stableMs: options.stableMs,
    timeoutMs: options.timeoutMs,
    capture: async () => (await screenshotTerminal(term, { profile: options.profile, cursor: options.cursor, mask: options.mask })).png,
    compare: (expected, actual, shown) => {
      const c = comparePngs(expected, actual, options);
      last.clear();
      last.set(actual, c);
      return { pass: c.pass, message: describeMismatch(shown, c, []) };
    },
    onMismatch: (expected, actual, golden) => {
      const c = last.get(actual);
      return c ? writeMismatchArtifacts(golden, expected, actual, c, options.threshold) : [];
    },
  });
  return { pass: result.pass, message: () => result.message };
}
