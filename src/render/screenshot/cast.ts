import { playCast, type CastPosition } from '../../session/cast/play.js';
import { profileForCast } from '../profiles.js';
import { screenshotSnapshot, type Screenshot, type ScreenshotOptions } from './screenshot.js';

/**
 * A screenshot of a terminal tape at a position: after a marker, after every
 * event at or before a time in seconds, or (no position) at the end.
 * capturedAtSeq is the number of tape events applied, counting the way
 * playCast stops.
 */
export async function screenshotCast(file: string, position?: CastPosition, options: ScreenshotOptions = {}): Promise<Screenshot & { time: number }> {
  const played = await playCast(file, position, { scrollback: 0 });
  try {
    const snap = played.screen.snapshot({ includeCells: true });
    // The cast's own colours unless a profile was chosen.
    const profile = profileForCast(options.profile, played.header.theme);
    const shot = await screenshotSnapshot(snap, played.events, { source: { file }, ...options, profile });
    return { ...shot, time: played.time };
  } finally {
    played.screen.dispose();
  }
}
