import { playCast, type CastPosition } from '../../session/cast/play.js';
import { profileForCast } from '../profiles.js';
import { renderSnapshotSvg, type RenderedSvg, type SvgOptions } from './svg.js';

/** The SVG of a cast's screen at a position (after a marker, at a time, or the end), as `tapedeck screenshot` plays it. */
export async function svgOfCast(file: string, position: CastPosition, options: SvgOptions = {}): Promise<RenderedSvg & { time: number; events: number }> {
  const played = await playCast(file, position, { scrollback: 0 });
  try {
    const snap = played.screen.snapshot({ includeCells: true });
    const profile = profileForCast(options.profile, played.header.theme);
    const svg = await renderSnapshotSvg(snap, { source: { file }, ...options, profile });
    return { ...svg, time: played.time, events: played.events };
  } finally {
    played.screen.dispose();
  }
}
