import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pngjs from 'pngjs';
import pixelmatch from 'pixelmatch';
import { countDifferingPixels } from '../../src/render/pixel/count.js';
import { comparePngs, countDiffPixels } from '../../src/render/pixel/diff.js';
import { ROOT } from '../helpers/cli.js';

// render/pixel/count.ts claims pixelmatch 8's count, exactly. These pairs are
// built to reach every branch of pixelmatch's that could go another way: few
// colours (equal neighbours, ties between the darkest and brightest),
// anti-aliased edges and gradients (its anti-aliasing check), colours nudged
// about the threshold, transparent and half-transparent pixels (its
// checkerboard, which depends on where a pixel is), edges, odd sizes and
// one-pixel images. The last test shows that the corpus catches pixelmatch
// itself when one of those branches is changed.

type Pair = { w: number; h: number; a: Uint8Array; b: Uint8Array; threshold: number; kind: string };
type Match = (a: Uint8Array, b: Uint8Array, out: null, w: number, h: number, o: { threshold: number }) => number;

function prng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (((t ^ (t >>> 14)) >>> 0) % n);
  };
}

type Rand = ReturnType<typeof prng>;
type Rgba = [number, number, number, number];

function colour(rand: Rand, alpha: 'opaque' | 'any'): Rgba {
  const a = alpha === 'opaque' ? 255 : [0, 255, 255, 128, 1, 254, rand(256)][rand(7)];
  // White at any alpha: premultiplied, whites differ in alpha alone (pixelmatch's brightness has a branch for that).
  if (alpha === 'any' && rand(6) === 0) return [255, 255, 255, a];
  return [rand(256), rand(256), rand(256), a];
}

function put(img: Uint8Array, i: number, c: Rgba): void {
  img[i * 4] = c[0];
  img[i * 4 + 1] = c[1];
  img[i * 4 + 2] = c[2];
  img[i * 4 + 3] = c[3];
}

/** A terminal-like image: a background, glyph-like marks in a few colours, their edges shaded between (anti-aliased). */
function screen(rand: Rand, w: number, h: number, palette: Rgba[], shaded: boolean): Uint8Array {
  const img = new Uint8Array(w * h * 4);
  const bg = palette[0];
  for (let i = 0; i < w * h; i++) put(img, i, bg);
  const marks = 1 + rand(Math.max(1, (w * h) >> 4));
  for (let m = 0; m < marks; m++) {
    const fg = palette[1 + rand(palette.length - 1)] ?? bg;
    const cx = rand(w);
    const cy = rand(h);
    const r = 1 + rand(4);
    for (let y = Math.max(0, cy - r); y < Math.min(h, cy + r + 1); y++) {
      for (let x = Math.max(0, cx - r); x < Math.min(w, cx + r + 1); x++) {
        const d = Math.hypot(x - cx, y - cy);
        const cover = shaded ? Math.max(0, Math.min(1, r + 0.5 - d)) : d <= r ? 1 : 0;
        if (cover === 0) continue;
        const mix = (k: number) => Math.round(bg[k] + (fg[k] - bg[k]) * cover);
        put(img, y * w + x, [mix(0), mix(1), mix(2), mix(3)]);
      }
    }
  }
  return img;
}

function gradient(rand: Rand, w: number, h: number, alpha: boolean): Uint8Array {
  const img = new Uint8Array(w * h * 4);
  const [sx, sy] = [rand(40) - 20, rand(40) - 20];
  const base = colour(rand, 'opaque');
  const step = [1 + rand(5), 1 + rand(5), 1 + rand(5)];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const v = x * sx + y * sy;
      put(img, y * w + x, [(base[0] + v * step[0]) & 0xff, (base[1] + v * step[1]) & 0xff, (base[2] + v * step[2]) & 0xff, alpha ? (x * 37 + y * 11) & 0xff : 255]);
    }
  }
  return img;
}

function noise(rand: Rand, w: number, h: number, alpha: 'opaque' | 'any'): Uint8Array {
  const img = new Uint8Array(w * h * 4);
  for (let i = 0; i < w * h; i++) put(img, i, colour(rand, alpha));
  return img;
}

/** A changed copy of `a`: repainted rectangles, nudged colours, a shift by a pixel, or alpha changed alone. */
function changed(rand: Rand, a: Uint8Array, w: number, h: number, palette: Rgba[]): Uint8Array {
  const b = new Uint8Array(a);
  const how = rand(6);
  if (how === 0) {
    for (let k = 0, n = 1 + rand(3); k < n; k++) {
      const [x0, y0] = [rand(w), rand(h)];
      const c = rand(2) ? palette[rand(palette.length)] : colour(rand, 'any');
      for (let y = y0; y < Math.min(h, y0 + 1 + rand(4)); y++) for (let x = x0; x < Math.min(w, x0 + 1 + rand(6)); x++) put(b, y * w + x, c);
    }
  } else if (how === 1) {
    // Small moves of one channel: colour distances on both sides of the threshold.
    for (let k = 0, n = 1 + rand(w * h); k < n; k++) {
      const i = rand(w * h) * 4 + rand(3);
      b[i] = Math.max(0, Math.min(255, b[i] + rand(41) - 20));
    }
  } else if (how === 2) {
    // One pixel to the right: every edge moves, anti-aliased pixels beside real changes.
    for (let y = 0; y < h; y++) for (let x = w - 1; x > 0; x--) b.copyWithin((y * w + x) * 4, (y * w + x - 1) * 4, (y * w + x) * 4);
  } else if (how === 3) {
    for (let k = 0, n = 1 + rand(w * h); k < n; k++) b[rand(w * h) * 4 + 3] = [0, 128, 255, rand(256)][rand(4)];
  } else if (how === 4) {
    // A mark redrawn a shade off, as a renderer's next version might.
    for (let i = 0; i < w * h; i++) if (a[i * 4] !== a[0] || a[i * 4 + 1] !== a[1]) for (let c = 0; c < 3; c++) b[i * 4 + c] = Math.min(255, a[i * 4 + c] + 6);
  } else {
    for (let k = 0, n = 1 + rand(4); k < n; k++) put(b, rand(w * h), colour(rand, 'any'));
  }
  return b;
}

const THRESHOLDS = [0, 0.01, 0.05, 0.1, 0.2, 0.2, 0.2, 0.3, 0.5, 1];
const SIZES = [1, 1, 2, 3, 4, 5, 7, 8, 13, 16, 31];

function corpus(count: number, seed: number): Pair[] {
  const rand = prng(seed);
  const pairs: Pair[] = [];
  for (let k = 0; k < count; k++) {
    const w = rand(3) === 0 ? SIZES[rand(SIZES.length)] : 1 + rand(40);
    const h = rand(3) === 0 ? SIZES[rand(SIZES.length)] : 1 + rand(40);
    const kinds = ['few colours', 'anti-aliased', 'translucent', 'gradient', 'gradient alpha', 'noise', 'another screen'];
    const kind = kinds[rand(kinds.length)];
    const palette = Array.from({ length: 2 + rand(5) }, () => colour(rand, kind === 'translucent' ? 'any' : 'opaque'));
    if (rand(4) === 0) palette[1] = [palette[0][0], palette[0][1], palette[0][2], 255 - palette[0][3]]; // same colour, other alpha
    let a: Uint8Array;
    if (kind === 'gradient' || kind === 'gradient alpha') a = gradient(rand, w, h, kind === 'gradient alpha');
    else if (kind === 'noise') a = noise(rand, w, h, rand(2) ? 'opaque' : 'any');
    else a = screen(rand, w, h, palette, kind !== 'few colours');
    const b = kind === 'another screen' ? screen(rand, w, h, palette, true) : changed(rand, a, w, h, palette);
    const threshold = rand(5) === 0 ? rand(1001) / 1000 : THRESHOLDS[rand(THRESHOLDS.length)];
    pairs.push(rand(2) ? { w, h, a, b, threshold, kind } : { w, h, a: b, b: a, threshold, kind });
  }
  return pairs;
}

function differingRows(p: Pair): number[] {
  const rows: number[] = [];
  const line = p.w * 4;
  for (let y = 0; y < p.h; y++) if (Buffer.compare(p.a.subarray(y * line, (y + 1) * line), p.b.subarray(y * line, (y + 1) * line)) !== 0) rows.push(y);
  return rows;
}

const words = (d: Uint8Array) => new Int32Array(d.buffer, d.byteOffset, d.length >> 2);
const count = (p: Pair) => countDifferingPixels(words(p.a), words(p.b), p.w, p.h, differingRows(p), p.threshold);
const reference = (match: Match, p: Pair) => match(p.a, p.b, null, p.w, p.h, { threshold: p.threshold });

const PAIRS = corpus(4000, 20261206);

describe('countDifferingPixels: pixelmatch 8 count, exactly', () => {
  it('equals pixelmatch on 4000 random and adversarial pairs', () => {
    const wrong: string[] = [];
    let counted = 0;
    for (const [k, p] of PAIRS.entries()) {
      const want = reference(pixelmatch, p);
      const got = count(p);
      if (got !== want) wrong.push(`#${k} ${p.kind} ${p.w}x${p.h} threshold ${p.threshold}: ${got}, pixelmatch ${want}`);
      if (want > 0) counted++;
    }
    expect(wrong).toEqual([]);
    // Not a corpus of trivial pairs: most have pixels pixelmatch counts.
    expect(counted).toBeGreaterThan(PAIRS.length / 2);
  });

  it('equals pixelmatch on terminal-sized screens (pixels away from the edges, runs of one colour pair)', () => {
    const rand = prng(7);
    for (let k = 0; k < 12; k++) {
      const [w, h] = [200 + rand(60), 90 + rand(30)];
      const palette = Array.from({ length: 3 + rand(6) }, () => colour(rand, k % 4 === 3 ? 'any' : 'opaque'));
      const a = screen(rand, w, h, palette, k % 2 === 0);
      const b = k % 3 === 0 ? screen(rand, w, h, palette, true) : changed(rand, a, w, h, palette);
      const p: Pair = { w, h, a, b, threshold: 0.2, kind: 'screen' };
      const want = reference(pixelmatch, p);
      expect(count(p)).toBe(want);
      // Through the public entry points too: decoded images, and PNG files (RGBA, so alpha is kept).
      const img = (d: Uint8Array) => ({ width: w, height: h, data: Buffer.from(d) });
      expect(countDiffPixels(img(a), img(b), 0.2)).toBe(want);
      const png = (d: Uint8Array) => pngjs.PNG.sync.write({ width: w, height: h, data: Buffer.from(d) }, { colorType: 6 } as never);
      expect(comparePngs(png(a), png(b), { maxDiffPixelRatio: 1 }).diffPixels).toBe(want);
    }
  });

  it('counts only the rows it is given (the caller names every differing row)', () => {
    const p = PAIRS.find((q) => reference(pixelmatch, q) > 0 && differingRows(q).length > 1)!;
    const rows = differingRows(p);
    const partial = countDifferingPixels(words(p.a), words(p.b), p.w, p.h, rows.slice(1), p.threshold);
    expect(partial).toBeLessThanOrEqual(reference(pixelmatch, p));
    expect(countDifferingPixels(words(p.a), words(p.b), p.w, p.h, [], p.threshold)).toBe(0);
  });
});

describe('the corpus catches a count that differs from pixelmatch in any one branch', () => {
  // pixelmatch's own source with one change each: what a copy that got that branch wrong would count.
  const source = readFileSync(join(ROOT, 'node_modules/pixelmatch/index.js'), 'utf8');
  const mutants: Array<[string, string, string]> = [
    ['no anti-aliasing check', 'const isExcludedAA = !includeAA && (', 'const isExcludedAA = false && ('],
    ['anti-aliasing checked in the first image only', ' || antialiased(img2, x, y, width, height, b32, a32));', ');'],
    ['the last of equally dark neighbours kept', '} else if (delta < min) {', '} else if (delta <= min) {'],
    ['the last of equally bright neighbours kept', '} else if (delta > max) {', '} else if (delta >= max) {'],
    ['siblings counted in one image only', 'return (hasManySiblings(a32, minX, minY, width, height) && hasManySiblings(b32, minX, minY, width, height))', 'return (hasManySiblings(a32, minX, minY, width, height))'],
    ['no extra equal sibling at an edge', "let zeroes = x1 === x0 || x1 === x2 || y1 === y0 || y1 === y2 ? 1 : 0;\n    let min", 'let zeroes = 0;\n    let min'],
    ['two equal neighbours end the check', 'if (zeroes > 2) return false;', 'if (zeroes > 1) return false;'],
    ['checkerboard placed a pixel off (a band-relative index)', 'const h = Math.imul(k >> 2, 0x9e3779b1);', 'const h = Math.imul((k >> 2) + 1, 0x9e3779b1);'],
    ['transparent pixels blended over white', 'if (checkerboard) {', 'if (false) {'],
    ['alpha alone not a brightness difference', 'return d === 0 && da ? da / 2 : d;', 'return d;'],
    ['colours opaque whatever their alpha', 'if (a1 === 255 && a2 === 255) {', 'if (true) {'],
    ['threshold a hair larger', 'const rest = maxDelta - Math.abs(dLr);', 'const rest = maxDelta * 1.02 - Math.abs(dLr);'],
    ['lightness sign ignored', 'const rest = maxDelta - Math.abs(dLr);', 'const rest = maxDelta - dLr;'],
  ];

  it.each(mutants)('%s', (_name, from, to) => {
    expect(source.split(from).length, `the mutation's text occurs once in pixelmatch`).toBe(2);
    const mutant = new Function(`${source.replace(from, to).replace('export default function pixelmatch', 'function pixelmatch')}\nreturn pixelmatch;`)() as Match;
    const caught = PAIRS.filter((p) => reference(mutant, p) !== reference(pixelmatch, p));
    expect(caught.length).toBeGreaterThan(0);
  });
});
