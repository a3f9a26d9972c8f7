import type { Terminal } from '../session/terminal.js';
import { screenshotTerminal } from '../render/screenshot-terminal.js';
import type { ScreenMask } from '../render/golden-text.js';
import type { CursorMode } from '../render/renderer-repaint.js';
import type { RenderProfile } from '../render/profiles.js';
import { comparePngs, describeMismatch, writeMismatchArtifacts, type PixelCompareOptions, type PixelComparison } from '../render/pixel-diff.js';
import { checkGolden } from '../core/golden-store.js';
import { nextGoldenPath, updateModeFor, type MatcherStateLike } from './context.js';

export interface ScreenshotMatcherOptions extends PixelCompareOptions {
  /** Render profile name (dark, light) or object; default dark. */
  profile?: string | RenderProfile;
  /** auto (default) follows the program; show/hide force the cursor. */
  cursor?: CursorMode;
  /** Volatile regions, painted over before rendering (rectangles of cells or regexes over line text). */
  mask?: readonly ScreenMask[];
  /** Golden name instead of the test name. */
  name?: string;
  /** How long the screen must stay unchanged first (default 100 ms). */
  stableMs?: number;
  timeoutMs?: number;
}

interface MatchResult {
  pass: boolean;
  message: () => string;
}

/**
 * expect(term).toMatchScreenshot(options): waits for a stable screen, renders
 * it, and compares it with goldens/<test file>/<test name>.png through the
 * golden store (written when missing locally, never on CI, rewritten by -u).
 * On a mismatch `<golden>.actual.png` and `<golden>.diff.png` land beside it.
 */
export async function toMatchScreenshot(this: MatcherStateLike, received: unknown, options: ScreenshotMatcherOptions = {}): Promise<MatchResult> {
  const term = received as Partial<Terminal> | null;
  if (!term || typeof term !== 'object' || typeof term.snapshot !== 'function' || typeof term.waitForStable !== 'function') {
    throw new TypeError(`toMatchScreenshot: expected a terminal from spawnTerminal(), got ${term === null ? 'null' : typeof term}`);
  }
  if (this.isNot) throw new Error('toMatchScreenshot cannot be negated: compare with a golden instead');
  await term.waitForStable(options.stableMs ?? 100, { timeoutMs: options.timeoutMs ?? 10_000 });
  const shot = await screenshotTerminal(term as Terminal, { profile: options.profile, cursor: options.cursor, mask: options.mask });
  const { path, displayPath } = nextGoldenPath(this, 'png', options.name);
  let last: PixelComparison | undefined;
  const result = checkGolden({
    path,
    displayPath,
    actual: shot.png,
    mode: updateModeFor(this),
    compare: (expected) => {
      last = comparePngs(expected, shot.png, options);
      return { pass: last.pass, message: describeMismatch(displayPath, last, []) };
    },
    onMismatch: (expected) => (last ? writeMismatchArtifacts(path, expected, shot.png, last, options.threshold) : []),
  });
  return { pass: result.pass, message: () => result.message };
}
