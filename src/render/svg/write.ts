import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { writeFileAtomic } from '../../core/files/atomic-write.js';
import type { CastPosition } from '../../session/cast/play.js';
import { svgOfCast } from './cast.js';
import type { SvgOptions } from './svg.js';

/** What `tapedeck screenshot --format svg` and `export --format svg` report. */
export interface SvgResult {
  artifactPath: string;
  svgSizeBytes: number;
  sha256: string;
  pixelWidth: number;
  pixelHeight: number;
  cols: number;
  rows: number;
  cell: { width: number; height: number };
  padding: { x: number; y: number };
  cursorVisible: boolean;
  profileName: string;
  capturedAtSeq: number;
  /** The embedded font subsets: family, font package file, how many characters. */
  fonts: { family: string; file: string; glyphs: number }[];
}

/** Renders a cast's screen at a position to an SVG file, written atomically (all of it or nothing). */
export async function writeSvgOfCast(file: string, position: CastPosition, out: string, options: SvgOptions = {}): Promise<SvgResult> {
  const svg = await svgOfCast(file, position, options);
  const bytes = Buffer.from(svg.svg, 'utf8');
  writeFileAtomic(out, bytes);
  return {
    artifactPath: resolve(out),
    svgSizeBytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    pixelWidth: svg.width,
    pixelHeight: svg.height,
    cols: (svg.width - 2 * svg.padding.x) / svg.cell.width,
    rows: (svg.height - 2 * svg.padding.y) / svg.cell.height,
    cell: svg.cell,
    padding: svg.padding,
    cursorVisible: svg.cursorVisible,
    profileName: svg.profileName,
    capturedAtSeq: svg.events,
    fonts: svg.fonts.map((f) => ({ family: f.family, file: fontFileName(f.file), glyphs: [...f.chars].length })),
  };
}

/** A font file by its package path ("@fontsource/noto-sans-sc/files/..."), from node_modules or the copy in dist/fonts/. */
function fontFileName(file: string): string {
  const m = /^.*(?:node_modules|dist\/fonts)\/(.*)$/.exec(file.replace(/\\/g, '/'));
  return m ? m[1] : file;
}
