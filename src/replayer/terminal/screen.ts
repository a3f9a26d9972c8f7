import { formatScreenGolden, type ScreenMask } from '../../render/golden-text.js';
import type { Screen } from '../../session/screen/screen.js';
import { unifiedDiff } from '../protocol/compare.js';
import { escapeControlChars } from './describe.js';

/**
 * The one normalisation terminal replay compares screens with, on both sides:
 * the screen-golden text (visible lines padded to the width, cursor, alt
 * screen) with masks applied, plus the style layer for checkpoints under
 * `styles`. Waiting and comparing use the same strings, so "the live screen
 * matched" and "no drift" can never disagree.
 */
export interface ScreenCompareOptions {
  mask?: readonly ScreenMask[];
  styles?: boolean;
}

/** What an input waits for: text and cursor after masks (styles never hold an input back). */
export function syncKey(screen: Screen, options: ScreenCompareOptions): string {
  return formatScreenGolden(screen.snapshot(), { mask: options.mask });
}

/** What a checkpoint (marker, end of tape) compares: text, and styles when asked. */
export function checkpointKey(screen: Screen, options: ScreenCompareOptions): string {
  return formatScreenGolden(screen.snapshot({ includeCells: options.styles === true }), { mask: options.mask, styles: options.styles });
}

/** Unified diff of two screen texts, control characters escaped line by line. */
export function screenDiff(expected: string, actual: string): string[] {
  const escape = (text: string) => text.split('\n').map(escapeControlChars).join('\n');
  return unifiedDiff(escape(expected), escape(actual), 'recorded screen', 'live screen');
}
