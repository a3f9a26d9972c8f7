import type { Terminal } from '../../session/terminal.js';
import { screenshotSnapshot, type Screenshot, type ScreenshotOptions } from './screenshot.js';

/**
 * A screenshot of a live terminal as it is now: every output byte parsed so
 * far is on it (capturedAtSeq says up to which event). Wait first (e.g.
 * waitForStable) when the program may still be drawing.
 */
export async function screenshotTerminal(term: Terminal, options: ScreenshotOptions = {}): Promise<Screenshot> {
  const snap = await term.snapshot({ includeCells: true });
  return screenshotSnapshot(snap, snap.capturedAtSeq, options);
}
