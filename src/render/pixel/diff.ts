import { dirname, relative } from 'node:path';
import { goldenPaths } from '../../core/golden/paths.js';
import { mkdirSync } from 'node:fs';
import { optionalPackage } from '../../core/lazy-package.js';
import { writeFileAtomic } from '../../core/files/atomic-write.js';
import { usageError } from '../../core/diagnostics/errors.js';
import { readPngStamp } from '../raster/png.js';
import { countDifferingPixels } from './count.js';
import { decodePng, differingRows, encodePng, inflatePngPair, LITTLE_ENDIAN, pngSize, PngError, toRgba, type RgbaImage } from './png.js';

type Pixelmatch = typeof import('pixelmatch').default;
const pixelmatchPackage = optionalPackage<{ default: Pixelmatch }>('pixelmatch');
const pixelmatch: Pixelmatch = (...args) => pixelmatchPackage().default(...args);

/**
 * Pixel comparison with Playwright toHaveScreenshot's meanings:
 *   threshold          pixelmatch's per-pixel colour distance 0..1 (default 0.2)
 *   maxDiffPixels      how many pixels may differ (default 0)
 *   maxDiffPixelRatio  what fraction of all pixels may differ, 0..1 (default 0)
 * When both limits are given the stricter one applies. Images of different
 * sizes never match.
 */
export interface PixelCompareOptions {
  threshold?: number;
  maxDiffPixels?: number;
  maxDiffPixelRatio?: number;
}

export interface PixelComparison {
  pass: boolean;
  /** Pixels pixelmatch counted as different (0 on a size mismatch). */
  diffPixels: number;
  /** diffPixels / all pixels of the expected image. */
  diffRatio: number;
  /** The limit in force, in pixels. */
  allowedDiffPixels: number;
  expectedSize: { width: number; height: number };
  actualSize: { width: number; height: number };
  sizeMismatch: boolean;
  /** One line: why it failed, or that it matched. */
  message: string;
  /**
   * Set when the actual image is stamped by a renderer and the golden was made
   * by another renderer or another version of it ("name version"): the pixels
   * are not compared, the golden is to be re-recorded.
   */
  otherRenderer?: string;
}

export const DEFAULT_THRESHOLD = 0.2;

export function validateCompareOptions(options: PixelCompareOptions): Required<Pick<PixelCompareOptions, 'threshold'>> & PixelCompareOptions {
  const { threshold = DEFAULT_THRESHOLD, maxDiffPixels, maxDiffPixelRatio } = options;
  if (!(threshold >= 0 && threshold <= 1)) throw usageError(`threshold must be between 0 and 1, got ${threshold}`);
  if (maxDiffPixels !== undefined && !(Number.isInteger(maxDiffPixels) && maxDiffPixels >= 0)) throw usageError(`maxDiffPixels must be a whole number >= 0, got ${maxDiffPixels}`);
  if (maxDiffPixelRatio !== undefined && !(maxDiffPixelRatio >= 0 && maxDiffPixelRatio <= 1)) throw usageError(`maxDiffPixelRatio must be between 0 and 1, got ${maxDiffPixelRatio}`);
  return { threshold, maxDiffPixels, maxDiffPixelRatio };
}

/** Compares two PNG files' pixels. Byte-identical files match without decoding. */
export function comparePngs(expected: Buffer, actual: Buffer, options: PixelCompareOptions = {}): PixelComparison {
  const opts = validateCompareOptions(options);
  const expectedSize = safeSize(expected, 'expected');
  const actualSize = safeSize(actual, 'actual');
  const pixels = expectedSize.width * expectedSize.height;
  const allowed = allowedPixels(pixels, opts);
  const base = { allowedDiffPixels: allowed, expectedSize, actualSize };
  const other = otherRenderer(expected, actual);
  if (other) {
    return { ...base, pass: false, diffPixels: 0, diffRatio: 0, sizeMismatch: false, otherRenderer: other, message: `golden made by renderer ${other}; re-record with -u` };
  }
  if (expectedSize.width !== actualSize.width || expectedSize.height !== actualSize.height) {
    return {
      ...base, pass: false, diffPixels: 0, diffRatio: 0, sizeMismatch: true,
      message: `image size differs: expected ${expectedSize.width}x${expectedSize.height} px, got ${actualSize.width}x${actualSize.height} px`,
    };
  }
  const diffPixels = expected.equals(actual) ? 0 : countPngDiffPixels(expected, actual, opts.threshold);
  const diffRatio = pixels ? diffPixels / pixels : 0;
  const pass = diffPixels <= allowed;
  const ratioText = (Math.ceil(diffRatio * 10000) / 10000).toString();
  const comparison: PixelComparison = {
    ...base, pass, diffPixels, diffRatio, sizeMismatch: false,
    message: pass
      ? `${diffPixels} pixels differ (allowed ${allowed})`
      : `${diffPixels} pixels (ratio ${ratioText} of all image pixels) are different; allowed ${allowed} (threshold ${opts.threshold})`,
  };
  return comparison;
}

/**
 * pixelmatch's count for two equally sized PNGs. Chromium's kind of PNG (8-bit
 * RGB/RGBA) is inflated once (the compressed bytes both files start with, once
 * for both) and compared scanline by scanline; only the rows
 * that differ, and two rows around each (which the anti-aliasing check reads),
 * have their filters reversed, and only the rows that differ are counted
 * (pixel/count.ts). Both are decoded into memory the next comparison reuses:
 * nothing is kept.
 */
function countPngDiffPixels(expected: Buffer, actual: Buffer, threshold: number): number {
  const pair = inflatePngPair(expected, actual);
  if (!pair) return countDiffPixels(decodePng(expected), decodePng(actual), threshold);
  const { a, b } = pair;
  const rows = differingRows(a, b, pair.sameRows);
  for (const [top, bottom] of bandsAround(rows, a.height)) {
    toRgba(a, top, bottom);
    toRgba(b, top, bottom);
  }
  return countDifferingPixels(int32Of(a.rgba), int32Of(b.rgba), a.width, a.height, rows, threshold);
}

/** A signed 32-bit view of RGBA bytes, one word per pixel (a copy when they are not 4-byte aligned). */
function int32Of(data: Uint8Array): Int32Array {
  const d = data.byteOffset % 4 === 0 ? data : new Uint8Array(data);
  return new Int32Array(d.buffer, d.byteOffset, d.length >> 2);
}

/**
 * pixelmatch's count for two decoded images of the same size, walking only
 * the rows that differ (pixel/count.ts: the same count, faster). On a
 * big-endian machine, where pixels read as words put R in the high byte,
 * pixelmatch itself counts.
 */
export function countDiffPixels(a: RgbaImage, b: RgbaImage, threshold: number): number {
  if (!LITTLE_ENDIAN) return pixelmatch(a.data, b.data, null, a.width, a.height, { threshold });
  const rowBytes = a.width * 4;
  const rows: number[] = [];
  for (let y = 0; y < a.height; y++) {
    const s = y * rowBytes;
    if (a.data.compare(b.data, s, s + rowBytes, s, s + rowBytes) !== 0) rows.push(y);
  }
  return countDifferingPixels(int32Of(a.data), int32Of(b.data), a.width, a.height, rows, threshold);
}

/** [top, bottom) row bands covering two rows around each of `rows` (ascending), merged where they touch. */
export function bandsAround(rows: readonly number[], height: number): Array<[number, number]> {
  const bands: Array<[number, number]> = [];
  for (const y of rows) {
    const top = Math.max(0, y - 2);
    const bottom = Math.min(height, y + 3);
    const last = bands[bands.length - 1];
    if (last && top <= last[1]) last[1] = bottom;
    else bands.push([top, bottom]);
  }
  return bands;
}

/** A diff image (pixelmatch's red-on-faded-original) of two equally sized PNGs. */
export function diffImage(expected: Buffer, actual: Buffer, threshold = DEFAULT_THRESHOLD): Buffer {
  return diffOf(decodePng(expected), decodePng(actual), threshold);
}

function diffOf(a: RgbaImage, b: RgbaImage, threshold: number): Buffer {
  const out = Buffer.alloc(a.width * a.height * 4);
  pixelmatch(a.data, b.data, out, a.width, a.height, { threshold });
  return encodePng({ width: a.width, height: a.height, data: out });
}

/** `<golden>.actual.png` and `<golden>.diff.png` beside the golden (named by the golden store). */
export function mismatchArtifactPaths(goldenPath: string): { actual: string; diff: string } {
  const p = goldenPaths(goldenPath);
  return { actual: p.actualImage, diff: p.diffImage };
}

export function writeMismatchArtifacts(goldenPath: string, expected: Buffer, actual: Buffer, comparison: PixelComparison, threshold?: number): string[] {
  const paths = mismatchArtifactPaths(goldenPath);
  mkdirSync(dirname(goldenPath), { recursive: true });
  writeFileAtomic(paths.actual, actual);
  if (comparison.sizeMismatch || comparison.otherRenderer) return [paths.actual];
  writeFileAtomic(paths.diff, diffImage(expected, actual, threshold));
  return [paths.actual, paths.diff];
}

/** The failure text, naming the golden and the files to look at. */
export function describeMismatch(displayPath: string, comparison: PixelComparison, artifacts: string[]): string {
  if (comparison.otherRenderer) return `screenshot golden ${displayPath}: ${comparison.message}`;
  const files = artifacts.length ? `\n  ${artifacts.map((a) => relative(process.cwd(), a)).join('\n  ')}` : '';
  return `screenshot differs from golden ${displayPath}: ${comparison.message}${files}`;
}

/**
 * "renderer version" of the golden when the actual image carries a renderer
 * stamp (tapedeck's raster renderer writes one) that the golden does not have
 * or has with another renderer or version; null when they agree.
 */
export function otherRenderer(expected: Buffer, actual: Buffer): string | null {
  const now = readPngStamp(actual);
  if (!now) return null;
  const then = readPngStamp(expected);
  if (!then) return 'xterm-dom-chromium (unstamped: made by the browser renderer of earlier tapedeck versions)';
  if (then.renderer === now.renderer && then.version === now.version) return null;
  return `${String(then.renderer)} ${String(then.version)} (this screenshot: ${now.renderer} ${now.version})`;
}

function allowedPixels(pixels: number, opts: PixelCompareOptions): number {
  const byCount = opts.maxDiffPixels;
  const byRatio = opts.maxDiffPixelRatio === undefined ? undefined : Math.floor(pixels * opts.maxDiffPixelRatio);
  if (byCount !== undefined && byRatio !== undefined) return Math.min(byCount, byRatio);
  return byCount ?? byRatio ?? 0;
}

function safeSize(png: Buffer, which: string): { width: number; height: number } {
  try {
    return pngSize(png);
  } catch (err) {
    if (err instanceof PngError) throw new PngError(`${which} image: ${err.message}`);
    throw err;
  }
}
