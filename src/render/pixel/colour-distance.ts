/**
 * pixelmatch 8.0.0's colour distance (index.js: colorDeltaOpaque,
 * colorDeltaTransparent and the tables and helpers they use), for
 * pixel/count.ts: the OKLab HyAB distance of two pixels against a threshold,
 * pixels that are not opaque blended first over pixelmatch's checkerboard
 * colour for their place in the image. Copied with its arithmetic in its
 * order, so the answers are bit for bit pixelmatch's; pixels are taken as
 * little-endian RGBA words where pixelmatch reads bytes.
 * pixelmatch: ISC License, Copyright (c) 2025, Mapbox. Permission to use,
 * copy, modify, and/or distribute this software for any purpose with or
 * without fee is hereby granted, provided that the above copyright notice and
 * this permission notice appear in all copies. THE SOFTWARE IS PROVIDED "AS
 * IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH REGARD TO THIS SOFTWARE.
 */

// sRGB [0..255] -> linear [0..1] (a 257th entry for interpolation).
const LIN = new Float64Array(257);
for (let i = 0; i < 256; i++) {
  const c = i / 255;
  LIN[i] = c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}
LIN[256] = LIN[255];

// The LMS matrix's terms for opaque sRGB bytes.
const L_R = new Float64Array(256);
const L_G = new Float64Array(256);
const L_B = new Float64Array(256);
const M_R = new Float64Array(256);
const M_G = new Float64Array(256);
const M_B = new Float64Array(256);
const S_R = new Float64Array(256);
const S_G = new Float64Array(256);
const S_B = new Float64Array(256);
for (let i = 0; i < 256; i++) {
  const lr = LIN[i];
  L_R[i] = 0.4122214708 * lr;
  M_R[i] = 0.2119034982 * lr;
  S_R[i] = 0.0883024619 * lr;
  L_G[i] = 0.5363325363 * lr;
  M_G[i] = 0.6806995451 * lr;
  S_G[i] = 0.2817188376 * lr;
  L_B[i] = 0.0514459929 * lr;
  M_B[i] = 0.1073969566 * lr;
  S_B[i] = 0.6299787005 * lr;
}

function linLUT(x: number): number {
  const i = x | 0;
  return LIN[i] + (LIN[i + 1] - LIN[i]) * (x - i);
}

const CBRT_N = 4096;
const CBRT = new Float64Array(CBRT_N + 2);
for (let i = 0; i <= CBRT_N + 1; i++) CBRT[i] = Math.cbrt(i / CBRT_N);
const CBRT_EXACT = 8;

function cbrtLUT(x: number): number {
  const t = x * CBRT_N;
  const i = t | 0;
  if (i < CBRT_EXACT) return Math.cbrt(x);
  return CBRT[i] + (CBRT[i + 1] - CBRT[i]) * (t - i);
}

const TOE_K1 = 0.206;
const TOE_K2 = 0.03;
const TOE_K3 = (1 + TOE_K1) / (1 + TOE_K2);

function lightness(l: number, m: number, s: number): number {
  const L = 0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s;
  const x = TOE_K3 * L - TOE_K1;
  return 0.5 * (x + Math.sqrt(x * x + 4 * TOE_K2 * TOE_K3 * L));
}

/** 0 when the HyAB distance stays within maxDelta, else +-1 (pixelmatch's oklabHyabDelta). */
function oklabHyabDelta(dLr: number, dl: number, dm: number, ds: number, maxDelta: number): number {
  const rest = maxDelta - Math.abs(dLr);
  if (rest >= 0) {
    const da = 1.9779984951 * dl - 2.4285922050 * dm + 0.4505937099 * ds;
    const db = 0.0259040371 * dl + 0.7827717662 * dm - 0.8086757660 * ds;
    if (da * da + db * db <= rest * rest) return 0;
  }
  return dLr > 0 ? -1 : 1;
}

// pixelmatch caches each opaque colour's cube-rooted LMS and lightness; so does this (a miss of
// the pair table often has one colour seen before).
const OKLAB_CACHE_BITS = 12;
const OKLAB_CACHE_SHIFT = 32 - OKLAB_CACHE_BITS;
const OKLAB_CACHE_KEYS = new Uint32Array(1 << OKLAB_CACHE_BITS);
const OKLAB_CACHE_VALUES = new Float64Array((1 << OKLAB_CACHE_BITS) * 4);

/** Offset in OKLAB_CACHE_VALUES of the colour's l, m, s and lightness. */
function oklabOf(r: number, g: number, b: number): number {
  const key = (r << 16) | (g << 8) | b;
  const slot = Math.imul(key, 0x9e3779b1) >>> OKLAB_CACHE_SHIFT;
  const offset = slot * 4;
  if (OKLAB_CACHE_KEYS[slot] === key + 1) return offset;
  const l = cbrtLUT(L_R[r] + L_G[g] + L_B[b]);
  const m = cbrtLUT(M_R[r] + M_G[g] + M_B[b]);
  const s = cbrtLUT(S_R[r] + S_G[g] + S_B[b]);
  OKLAB_CACHE_KEYS[slot] = key + 1;
  OKLAB_CACHE_VALUES[offset] = l;
  OKLAB_CACHE_VALUES[offset + 1] = m;
  OKLAB_CACHE_VALUES[offset + 2] = s;
  OKLAB_CACHE_VALUES[offset + 3] = lightness(l, m, s);
  return offset;
}

/** 0 when opaque pixels (r1, g1, b1) and (r2, g2, b2) are within maxDelta, else +-1. */
export function colorDeltaOpaque(r1: number, g1: number, b1: number, r2: number, g2: number, b2: number, maxDelta: number): number {
  const o1 = oklabOf(r1, g1, b1);
  const l1 = OKLAB_CACHE_VALUES[o1];
  const m1 = OKLAB_CACHE_VALUES[o1 + 1];
  const s1 = OKLAB_CACHE_VALUES[o1 + 2];
  const lr1 = OKLAB_CACHE_VALUES[o1 + 3];
  // The second colour may evict the first from its slot: the first's values are read before.
  const o2 = oklabOf(r2, g2, b2);
  return oklabHyabDelta(lr1 - OKLAB_CACHE_VALUES[o2 + 3], l1 - OKLAB_CACHE_VALUES[o2], m1 - OKLAB_CACHE_VALUES[o2 + 1], s1 - OKLAB_CACHE_VALUES[o2 + 2], maxDelta);
}

/** Pixels pa, pb (one not opaque) blended over pixelmatch's checkerboard colour for byte offset k, then compared. */
export function colorDeltaTransparent(pa: number, pb: number, k: number, maxDelta: number): number {
  const a1 = pa >>> 24;
  const a2 = pb >>> 24;
  const h = Math.imul(k >> 2, 0x9e3779b1);
  const rb = 48 + 159 * (h >>> 31);
  const gb = 48 + 159 * ((h >>> 30) & 1);
  const bb = 48 + 159 * ((h >>> 29) & 1);
  const r1 = ((pa & 0xff) * a1 + rb * (255 - a1)) / 255;
  const g1 = (((pa >>> 8) & 0xff) * a1 + gb * (255 - a1)) / 255;
  const b1 = (((pa >>> 16) & 0xff) * a1 + bb * (255 - a1)) / 255;
  const r2 = ((pb & 0xff) * a2 + rb * (255 - a2)) / 255;
  const g2 = (((pb >>> 8) & 0xff) * a2 + gb * (255 - a2)) / 255;
  const b2 = (((pb >>> 16) & 0xff) * a2 + bb * (255 - a2)) / 255;
  const lr1 = linLUT(r1);
  const lg1 = linLUT(g1);
  const lb1 = linLUT(b1);
  const lr2 = linLUT(r2);
  const lg2 = linLUT(g2);
  const lb2 = linLUT(b2);
  const l1 = cbrtLUT(0.4122214708 * lr1 + 0.5363325363 * lg1 + 0.0514459929 * lb1);
  const m1 = cbrtLUT(0.2119034982 * lr1 + 0.6806995451 * lg1 + 0.1073969566 * lb1);
  const s1 = cbrtLUT(0.0883024619 * lr1 + 0.2817188376 * lg1 + 0.6299787005 * lb1);
  const l2 = cbrtLUT(0.4122214708 * lr2 + 0.5363325363 * lg2 + 0.0514459929 * lb2);
  const m2 = cbrtLUT(0.2119034982 * lr2 + 0.6806995451 * lg2 + 0.1073969566 * lb2);
  const s2 = cbrtLUT(0.0883024619 * lr2 + 0.2817188376 * lg2 + 0.6299787005 * lb2);
  return oklabHyabDelta(lightness(l1, m1, s1) - lightness(l2, m2, s2), l1 - l2, m1 - m2, s1 - s2, maxDelta);
}
