import { dirname, join, basename, relative } from 'node:path';
import { mkdirSync } from 'node:fs';
import pixelmatch from 'pixelmatch';
import { writeFileAtomic } from '../core/atomic-write.js';
import { usageError } from '../core/errors.js';
import { decodePng, encodePng, pngSize, PngError, type RgbaImage } from './pixel-diff-png.js';

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
  if (expectedSize.width !== actualSize.width || expectedSize.height !== actualSize.height) {
    return {
      ...base, pass: false, diffPixels: 0, diffRatio: 0, sizeMismatch: true,
      message: `image size differs: expected ${expectedSize.width}x${expectedSize.height} px, got ${actualSize.width}x${actualSize.height} px`,
    };
  }
  const diffPixels = expected.equals(actual) ? 0 : countDiffPixels(decodePng(expected), decodePng(actual), opts.threshold);
  const diffRatio = pixels ? diffPixels / pixels : 0;
  const pass = diffPixels <= allowed;
  const ratioText = (Math.ceil(diffRatio * 10000) / 10000).toString();
  return {
    ...base, pass, diffPixels, diffRatio, sizeMismatch: false,
    message: pass
      ? `${diffPixels} pixels differ (allowed ${allowed})`
      : `${diffPixels} pixels (ratio ${ratioText} of all image pixels) are different; allowed ${allowed} (threshold ${opts.threshold})`,
  };
}

/**
 * pixelmatch's count, computed on the band of rows that differ: pixelmatch's
 * anti-aliasing check looks two pixels around each differing pixel, so a band
 * with two identical rows above and below counts exactly what the whole image
 * would, without walking the identical rest of the screen.
 */
export function countDiffPixels(a: RgbaImage, b: RgbaImage, threshold: number): number {
  const rowBytes = a.width * 4;
  let first = -1;
  let last = -1;
  for (let y = 0; y < a.height; y++) {
    const s = y * rowBytes;
    if (a.data.compare(b.data, s, s + rowBytes, s, s + rowBytes) !== 0) {
      if (first < 0) first = y;
      last = y;
    }
  }
  if (first < 0) return 0;
  const top = Math.max(0, first - 2);
  const bottom = Math.min(a.height, last + 3);
  const band = (img: RgbaImage) => img.data.subarray(top * rowBytes, bottom * rowBytes);
  return pixelmatch(band(a), band(b), null, a.width, bottom - top, { threshold });
}

/** A diff image (pixelmatch's red-on-faded-original) of two equally sized PNGs. */
export function diffImage(expected: Buffer, actual: Buffer, threshold = DEFAULT_THRESHOLD): Buffer {
  const a = decodePng(expected);
  const b = decodePng(actual);
  const out = Buffer.alloc(a.width * a.height * 4);
  pixelmatch(a.data, b.data, out, a.width, a.height, { threshold });
  return encodePng({ width: a.width, height: a.height, data: out });
}

/** `<golden>.actual.png` and `<golden>.diff.png` beside the golden (no diff when the sizes differ). */
export function mismatchArtifactPaths(goldenPath: string): { actual: string; diff: string } {
  const stem = join(dirname(goldenPath), basename(goldenPath).replace(/\.png$/i, ''));
  return { actual: `${stem}.actual.png`, diff: `${stem}.diff.png` };
}

export function writeMismatchArtifacts(goldenPath: string, expected: Buffer, actual: Buffer, comparison: PixelComparison, threshold?: number): string[] {
  const paths = mismatchArtifactPaths(goldenPath);
  mkdirSync(dirname(goldenPath), { recursive: true });
  writeFileAtomic(paths.actual, actual);
  if (comparison.sizeMismatch) return [paths.actual];
  writeFileAtomic(paths.diff, diffImage(expected, actual, threshold));
  return [paths.actual, paths.diff];
}

/** The failure text, naming the golden and the files to look at. */
export function describeMismatch(displayPath: string, comparison: PixelComparison, artifacts: string[]): string {
  const files = artifacts.length ? `\n  ${artifacts.map((a) => relative(process.cwd(), a)).join('\n  ')}` : '';
  return `screenshot differs from golden ${displayPath}: ${comparison.message}${files}`;
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
