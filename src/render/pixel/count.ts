/**
 * pixelmatch 8's count of differing pixels, the same number for the same
 * images and threshold (its OKLab HyAB colour distance, its anti-aliasing
 * detection, its checkerboard blending of pixels that are not opaque), made
 * faster for screenshots:
 *   - only the rows the caller names are walked (the others are equal);
 *   - an opaque pixel pair's colour test is looked up by the pair of colours
 *     (a terminal screenshot has few colours, so few pairs);
 *   - pixels are signed 32-bit words (Int32Array: small integers to V8), and
 *     the anti-aliasing check compares whole words before it looks at bytes.
 * Pixels are RGBA bytes as little-endian words: R in the low byte, alpha in
 * the high one (callers check the machine's byte order).
 *
 * The anti-aliasing check here and the colour distance (colour-distance.ts)
 * are pixelmatch 8.0.0's (index.js), rewritten to read words; the arithmetic
 * is kept in its order, so the results are bit for bit its own.
 * pixelmatch: ISC License, Copyright (c) 2025, Mapbox. Permission to use,
 * copy, modify, and/or distribute this software for any purpose with or
 * without fee is hereby granted, provided that the above copyright notice and
 * this permission notice appear in all copies. THE SOFTWARE IS PROVIDED "AS
 * IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH REGARD TO THIS SOFTWARE.
 * test/render/pixel-count.test.ts holds this to pixelmatch's count.
 */

import { colorDeltaOpaque, colorDeltaTransparent } from './colour-distance.js';

/**
 * How many pixels pixelmatch(a, b, null, width, height, { threshold }) counts,
 * given that `rows` lists (ascending or not, each once) every row where a and b
 * differ; the pixels two rows around each must be decoded too (the
 * anti-aliasing check looks that far).
 */
export function countDifferingPixels(a: Int32Array, b: Int32Array, width: number, height: number, rows: Iterable<number>, threshold: number): number {
  usePairCache(threshold);
  let n = 0;
  for (const y of rows) {
    const start = y * width;
    // The last opaque pair seen on the row and whether its colours differ (runs of one pair are common).
    let lastA = 0;
    let lastB = 0;
    let lastDiffers = false;
    for (let i = start, end = start + width; i < end; i++) {
      const pa = a[i];
      const pb = b[i];
      if (pa === pb) continue;
      let differs: boolean;
      if ((pa & pb) >>> 24 === 255) {
        if (pa !== lastA || pb !== lastB) {
          lastA = pa;
          lastB = pb;
          lastDiffers = opaquePairDiffers(pa, pb, threshold);
        }
        differs = lastDiffers;
      } else {
        differs = colorDeltaTransparent(pa, pb, i * 4, threshold) !== 0;
      }
      if (!differs) continue;
      const x = i - start;
      if (antialiased(a, x, y, width, height, a, b) || antialiased(b, x, y, width, height, b, a)) continue;
      n++;
    }
  }
  return n;
}

// Opaque pairs already tested: a direct-mapped table keyed by both words. Kept
// between calls (the test depends only on the pair and the threshold).
const PAIR_BITS = 14;
const pairA = new Int32Array(1 << PAIR_BITS);
const pairB = new Int32Array(1 << PAIR_BITS);
/** 0 empty, 1 the pair is alike, 2 it differs. */
const pairResult = new Uint8Array(1 << PAIR_BITS);
let pairThreshold = -1;

function usePairCache(threshold: number): void {
  if (threshold === pairThreshold) return;
  pairResult.fill(0);
  pairThreshold = threshold;
}

function opaquePairDiffers(pa: number, pb: number, threshold: number): boolean {
  const slot = Math.imul(pa ^ Math.imul(pb, 0x85ebca6b), 0x9e3779b1) >>> (32 - PAIR_BITS);
  const known = pairResult[slot];
  if (known !== 0 && pairA[slot] === pa && pairB[slot] === pb) return known === 2;
  const differs = colorDeltaOpaque(pa & 0xff, (pa >>> 8) & 0xff, (pa >>> 16) & 0xff, pb & 0xff, (pb >>> 8) & 0xff, (pb >>> 16) & 0xff, threshold) !== 0;
  pairA[slot] = pa;
  pairB[slot] = pb;
  pairResult[slot] = differs ? 2 : 1;
  return differs;
}

// ---- From pixelmatch 8.0.0 (ISC, Mapbox; see above), pixels read as words ----

/** pixelmatch's antialiased(): whether pixel (x1, y1) of img is likely anti-aliasing (a32, b32: both images). */
function antialiased(img: Int32Array, x1: number, y1: number, width: number, height: number, a32: Int32Array, b32: Int32Array): boolean {
  if (x1 > 0 && x1 < width - 1 && y1 > 0 && y1 < height - 1) {
    const inside = antialiasedInside(img, x1, y1, width, height, a32, b32);
    if (inside !== UNDECIDED) return inside === 1;
  }
  return antialiasedWalk(img, x1, y1, width, height, a32, b32);
}

const UNDECIDED = 2;
// The 8 neighbours in pixelmatch's order (column by column), as offsets in x and y.
const DX = [-1, -1, -1, 0, 0, 1, 1, 1];
const DY = [-1, 0, 1, -1, 1, -1, 0, 1];

/**
 * antialiasedWalk's answer (1 or 0) for a pixel away from the edges, unrolled:
 * 3 equal neighbours end the walk with "no" whatever their
 * order (most pixels of a terminal screenshot end here, on word compares);
 * when all 9 pixels are opaque, the 8 brightness deltas are computed as the
 * walk does and the darkest and brightest taken as it keeps them. UNDECIDED
 * when a pixel is not opaque.
 */
function antialiasedInside(img: Int32Array, x1: number, y1: number, width: number, height: number, a32: Int32Array, b32: Int32Array): number {
  const p = y1 * width + x1;
  const c = img[p];
  const n0 = img[p - width - 1];
  const n1 = img[p - 1];
  const n2 = img[p + width - 1];
  const n3 = img[p - width];
  const n4 = img[p + width];
  const n5 = img[p - width + 1];
  const n6 = img[p + 1];
  const n7 = img[p + width + 1];
  const equal = +(c === n0) + +(c === n1) + +(c === n2) + +(c === n3) + +(c === n4) + +(c === n5) + +(c === n6) + +(c === n7);
  if (equal > 2) return 0;
  if ((c & n0 & n1 & n2 & n3 & n4 & n5 & n6 & n7) >>> 24 !== 255) return UNDECIDED;
  const r = c & 0xff;
  const g = (c >>> 8) & 0xff;
  const b = (c >>> 16) & 0xff;
  const d0 = opaqueBrightnessDelta(n0, r, g, b);
  const d1 = opaqueBrightnessDelta(n1, r, g, b);
  const d2 = opaqueBrightnessDelta(n2, r, g, b);
  const d3 = opaqueBrightnessDelta(n3, r, g, b);
  const d4 = opaqueBrightnessDelta(n4, r, g, b);
  const d5 = opaqueBrightnessDelta(n5, r, g, b);
  const d6 = opaqueBrightnessDelta(n6, r, g, b);
  const d7 = opaqueBrightnessDelta(n7, r, g, b);
  if (+(d0 === 0) + +(d1 === 0) + +(d2 === 0) + +(d3 === 0) + +(d4 === 0) + +(d5 === 0) + +(d6 === 0) + +(d7 === 0) > 2) return 0;
  // The darkest and the brightest, the first of equal ones, as the walk keeps them (straight-line
  // branches: Math.min and Math.max over the nine took a tenth longer overall).
  let min = 0;
  let max = 0;
  let kMin = 0;
  let kMax = 0;
  if (d0 < min) (min = d0), (kMin = 0);
  else if (d0 > max) (max = d0), (kMax = 0);
  if (d1 < min) (min = d1), (kMin = 1);
  else if (d1 > max) (max = d1), (kMax = 1);
  if (d2 < min) (min = d2), (kMin = 2);
  else if (d2 > max) (max = d2), (kMax = 2);
  if (d3 < min) (min = d3), (kMin = 3);
  else if (d3 > max) (max = d3), (kMax = 3);
  if (d4 < min) (min = d4), (kMin = 4);
  else if (d4 > max) (max = d4), (kMax = 4);
  if (d5 < min) (min = d5), (kMin = 5);
  else if (d5 > max) (max = d5), (kMax = 5);
  if (d6 < min) (min = d6), (kMin = 6);
  else if (d6 > max) (max = d6), (kMax = 6);
  if (d7 < min) (min = d7), (kMin = 7);
  else if (d7 > max) (max = d7), (kMax = 7);
  if (min === 0 || max === 0) return 0;
  const minX = x1 + DX[kMin];
  const minY = y1 + DY[kMin];
  const maxX = x1 + DX[kMax];
  const maxY = y1 + DY[kMax];
  return +(
    (hasManySiblings(a32, minX, minY, width, height) && hasManySiblings(b32, minX, minY, width, height)) ||
    (hasManySiblings(a32, maxX, maxY, width, height) && hasManySiblings(b32, maxX, maxY, width, height))
  );
}

/** brightnessDelta() for two opaque pixels: centre (r1, g1, b1) against p. */
function opaqueBrightnessDelta(p: number, r1: number, g1: number, b1: number): number {
  return (r1 - (p & 0xff)) * 0.29889531 + (g1 - ((p >>> 8) & 0xff)) * 0.58662247 + (b1 - ((p >>> 16) & 0xff)) * 0.11448223;
}

/** pixelmatch's antialiased() walk itself (any pixel: at an edge, or not opaque). */
function antialiasedWalk(img: Int32Array, x1: number, y1: number, width: number, height: number, a32: Int32Array, b32: Int32Array): boolean {
  const x0 = x1 > 0 ? x1 - 1 : 0;
  const y0 = y1 > 0 ? y1 - 1 : 0;
  const x2 = x1 < width - 1 ? x1 + 1 : width - 1;
  const y2 = y1 < height - 1 ? y1 + 1 : height - 1;
  const centre = img[y1 * width + x1];
  const cr = centre & 0xff;
  const cg = (centre >>> 8) & 0xff;
  const cb = (centre >>> 16) & 0xff;
  const ca = centre >>> 24;
  let zeroes = x1 === x0 || x1 === x2 || y1 === y0 || y1 === y2 ? 1 : 0;
  let min = 0;
  let max = 0;
  let minX = 0;
  let minY = 0;
  let maxX = 0;
  let maxY = 0;
  // The 8 adjacent pixels, column by column (the order decides which of equal extremes is kept).
  for (let x = x0; x <= x2; x++) {
    let m = y0 * width + x;
    for (let y = y0; y <= y2; y++, m += width) {
      if (x === x1 && y === y1) continue;
      const delta = brightnessDelta(img[m], cr, cg, cb, ca);
      if (delta === 0) {
        zeroes++;
        if (zeroes > 2) return false;
      } else if (delta < min) {
        min = delta;
        minX = x;
        minY = y;
      } else if (delta > max) {
        max = delta;
        maxX = x;
        maxY = y;
      }
    }
  }
  if (min === 0 || max === 0) return false;
  return (
    (hasManySiblings(a32, minX, minY, width, height) && hasManySiblings(b32, minX, minY, width, height)) ||
    (hasManySiblings(a32, maxX, maxY, width, height) && hasManySiblings(b32, maxX, maxY, width, height))
  );
}

/** pixelmatch's hasManySiblings(): whether pixel (x1, y1) has 3+ adjacent pixels of its colour. */
function hasManySiblings(img: Int32Array, x1: number, y1: number, width: number, height: number): boolean {
  const pos1 = y1 * width + x1;
  const val = img[pos1];
  if (x1 > 0 && x1 < width - 1 && y1 > 0 && y1 < height - 1) {
    return (
      +(val === img[pos1 - width - 1]) +
        +(val === img[pos1 - 1]) +
        +(val === img[pos1 + width - 1]) +
        +(val === img[pos1 - width]) +
        +(val === img[pos1 + width]) +
        +(val === img[pos1 - width + 1]) +
        +(val === img[pos1 + 1]) +
        +(val === img[pos1 + width + 1]) >
      2
    );
  }
  const x0 = x1 > 0 ? x1 - 1 : 0;
  const y0 = y1 > 0 ? y1 - 1 : 0;
  const x2 = x1 < width - 1 ? x1 + 1 : width - 1;
  const y2 = y1 < height - 1 ? y1 + 1 : height - 1;
  let zeroes = x1 === x0 || x1 === x2 || y1 === y0 || y1 === y2 ? 1 : 0;
  for (let x = x0; x <= x2; x++) {
    let pos = y0 * width + x;
    for (let y = y0; y <= y2; y++, pos += width) {
      if (x === x1 && y === y1) continue;
      zeroes += +(val === img[pos]);
      if (zeroes > 2) return true;
    }
  }
  return false;
}

/** pixelmatch's brightnessDelta() of centre (r1, g1, b1, a1) against pixel p. */
function brightnessDelta(p: number, r1: number, g1: number, b1: number, a1: number): number {
  const r2 = p & 0xff;
  const g2 = (p >>> 8) & 0xff;
  const b2 = (p >>> 16) & 0xff;
  const a2 = p >>> 24;
  let dr = r1 - r2;
  let dg = g1 - g2;
  let db = b1 - b2;
  const da = a1 - a2;
  if (!dr && !dg && !db && !da) return 0;
  if (a1 < 255 || a2 < 255) {
    dr = (r1 * a1 - r2 * a2 - 255 * da) / 255;
    dg = (g1 * a1 - g2 * a2 - 255 * da) / 255;
    db = (b1 * a1 - b2 * a2 - 255 * da) / 255;
    const d = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223;
    return d === 0 && da ? da / 2 : d;
  }
  return dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223;
}
