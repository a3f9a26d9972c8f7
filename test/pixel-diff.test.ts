import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pngjs from 'pngjs';
import pixelmatch from 'pixelmatch';
import { comparePngs, countDiffPixels, diffImage, writeMismatchArtifacts } from '../src/render/pixel-diff.js';
import { decodePng, differingRows, inflatePng, pngSize, toRgba } from '../src/render/pixel-diff-png.js';
import { tempDir } from './helpers/cli.js';

const { PNG } = pngjs;

/** A deterministic pseudo-random RGB(A) image with text-like runs (so every PNG filter type gets used). */
function image(width: number, height: number, seed: number): Buffer {
  const data = Buffer.alloc(width * height * 4);
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
  for (let i = 0; i < data.length; i += 4) {
    const run = (i >> 5) % 3 === 0;
    data[i] = run ? 20 : rand();
    data[i + 1] = run ? 20 : rand();
    data[i + 2] = run ? 30 : rand();
    data[i + 3] = 255;
  }
  return data;
}

function encode(width: number, height: number, data: Buffer, colorType = 2): Buffer {
  return PNG.sync.write({ width, height, data }, { colorType, filterType: -1 } as never);
}

const temp = tempDir('tapedeck-pixel-');
afterAll(() => temp.cleanup());

describe('decodePng', () => {
  it('decodes RGB and RGBA PNGs (every filter type) exactly as pngjs does', () => {
    for (const colorType of [2, 6]) {
      const raw = image(97, 41, 7 + colorType);
      const png = encode(97, 41, raw, colorType);
      expect(png[25]).toBe(colorType);
      const ours = decodePng(png);
      const theirs = PNG.sync.read(png);
      expect(ours.width).toBe(97);
      expect(ours.data.equals(theirs.data)).toBe(true);
    }
  });

  it('reverses each row filter alone exactly as pngjs does (RGB, and RGBA with varying alpha)', () => {
    for (const colorType of [2, 6]) {
      const raw = image(53, 17, 5 + colorType);
      if (colorType === 6) for (let i = 3; i < raw.length; i += 4) raw[i] = (i * 37) & 0xff;
      for (const filterType of [0, 1, 2, 3, 4]) {
        const png = PNG.sync.write({ width: 53, height: 17, data: raw }, { colorType, filterType } as never);
        expect(decodePng(png).data.equals(PNG.sync.read(png).data)).toBe(true);
      }
    }
  });

  it('what decodePng returned and what a failed comparison needs stay intact through later comparisons', () => {
    const pngs = [1, 2, 3, 4].map((seed) => encode(97, 41, image(97, 41, seed)));
    const decoded = decodePng(pngs[0]);
    const first = comparePngs(pngs[0], pngs[1]);
    expect(comparePngs(pngs[2], pngs[3], { maxDiffPixelRatio: 1 }).diffPixels).toBeGreaterThan(0); // decodes into the same memory
    expect(decoded.data.equals(PNG.sync.read(pngs[0]).data)).toBe(true);
    expect(first.pass).toBe(false);
    const [, diffPath] = writeMismatchArtifacts(join(temp.dir, 'later', 'screen.png'), pngs[0], pngs[1], first);
    expect(readFileSync(diffPath).equals(diffImage(pngs[0], pngs[1]))).toBe(true);
  });

  it('reads the size from the header and rejects what is not a PNG', () => {
    expect(pngSize(encode(5, 3, image(5, 3, 1)))).toEqual({ width: 5, height: 3 });
    expect(() => pngSize(Buffer.from('GIF89a not a png at all'))).toThrow(/not a PNG/);
  });
});

describe('comparePngs (Playwright toHaveScreenshot meanings)', () => {
  const w = 40;
  const h = 30;
  const base = image(w, h, 3);
  const expectedPng = encode(w, h, base);
  /** `n` pixels far from their original colour, spread over several rows. */
  function changed(n: number): Buffer {
    const data = Buffer.from(base);
    for (let k = 0; k < n; k++) {
      const i = ((k * 37) % (w * h)) * 4;
      data[i] = 255 - data[i];
      data[i + 1] = 255 - data[i + 1];
      data[i + 2] = 255 - data[i + 2];
    }
    return encode(w, h, data);
  }

  it('passes byte-identical and pixel-identical images', () => {
    expect(comparePngs(expectedPng, expectedPng)).toMatchObject({ pass: true, diffPixels: 0 });
    const reencoded = encode(w, h, base, 6);
    expect(reencoded.equals(expectedPng)).toBe(false);
    expect(comparePngs(expectedPng, reencoded)).toMatchObject({ pass: true, diffPixels: 0 });
  });

  it('fails on any difference by default and counts the pixels', () => {
    const r = comparePngs(expectedPng, changed(10));
    expect(r.pass).toBe(false);
    expect(r.diffPixels).toBeGreaterThan(0);
    expect(r.diffPixels).toBeLessThanOrEqual(10);
    expect(r.message).toMatch(/pixels \(ratio [\d.]+ of all image pixels\) are different/);
  });

  it('maxDiffPixels and maxDiffPixelRatio allow differences; with both the stricter wins', () => {
    const actual = changed(10);
    const n = comparePngs(expectedPng, actual).diffPixels;
    expect(comparePngs(expectedPng, actual, { maxDiffPixels: n }).pass).toBe(true);
    expect(comparePngs(expectedPng, actual, { maxDiffPixels: n - 1 }).pass).toBe(false);
    expect(comparePngs(expectedPng, actual, { maxDiffPixelRatio: n / (w * h) }).pass).toBe(true);
    expect(comparePngs(expectedPng, actual, { maxDiffPixelRatio: (n - 1) / (w * h) }).pass).toBe(false);
    expect(comparePngs(expectedPng, actual, { maxDiffPixels: 1000, maxDiffPixelRatio: (n - 1) / (w * h) }).pass).toBe(false);
    expect(comparePngs(expectedPng, actual, { maxDiffPixels: n - 1, maxDiffPixelRatio: 1 }).pass).toBe(false);
  });

  it('threshold decides how far a colour may move', () => {
    const data = Buffer.from(base);
    for (let i = 0; i < data.length; i += 4) data[i] = Math.min(255, data[i] + 3);
    const nudged = encode(w, h, data);
    expect(comparePngs(expectedPng, nudged, { threshold: 0.2 }).pass).toBe(true);
    expect(comparePngs(expectedPng, nudged, { threshold: 0 }).pass).toBe(false);
  });

  it('a size mismatch fails with both sizes in the message', () => {
    const r = comparePngs(expectedPng, encode(w + 1, h, image(w + 1, h, 3)), { maxDiffPixelRatio: 1 });
    expect(r).toMatchObject({ pass: false, sizeMismatch: true });
    expect(r.message).toBe('image size differs: expected 40x30 px, got 41x30 px');
  });

  it('rejects options outside their ranges', () => {
    expect(() => comparePngs(expectedPng, expectedPng, { threshold: 2 })).toThrow(/threshold/);
    expect(() => comparePngs(expectedPng, expectedPng, { maxDiffPixels: -1 })).toThrow(/maxDiffPixels/);
    expect(() => comparePngs(expectedPng, expectedPng, { maxDiffPixelRatio: 1.5 })).toThrow(/maxDiffPixelRatio/);
  });

  it('counting on the band of differing rows gives pixelmatch whole-image count', () => {
    for (const n of [1, 5, 40, 300]) {
      const a = decodePng(expectedPng);
      const b = decodePng(changed(n));
      expect(countDiffPixels(a, b, 0.2)).toBe(pixelmatch(a.data, b.data, null, w, h, { threshold: 0.2 }));
    }
  });

  it('counts what pixelmatch counts on the whole decoded images, for changes spread over the image (every filter, RGB and RGBA)', () => {
    const W = 61;
    const H = 90;
    for (const colorType of [2, 6]) {
      const raw = image(W, H, 11 + colorType);
      const a = encode(W, H, raw, colorType);
      // Separate clusters (top, middle, bottom rows, and two rows 5 apart), one-pixel and wide changes.
      for (const rows of [[0], [H - 1], [0, H - 1], [10, 15], [10, 14], [3, 40, 41, 42, 88], [20]]) {
        const data = Buffer.from(raw);
        for (const y of rows) for (let x = (y * 7) % W; x < W; x += 1 + (y % 5)) data[(y * W + x) * 4] ^= 0x80;
        const b = encode(W, H, data, colorType);
        const full = (png: Buffer) => PNG.sync.read(png).data;
        const expected = pixelmatch(full(a), full(b), null, W, H, { threshold: 0.2 });
        expect(comparePngs(a, b, { maxDiffPixelRatio: 1 }).diffPixels).toBe(expected);
        expect(countDiffPixels(decodePng(a), decodePng(b), 0.2)).toBe(expected);
        // The partly decoded images finish decoding exactly as pngjs decodes them.
        const ra = inflatePng(a)!;
        const rb = inflatePng(b)!;
        expect(differingRows(ra, rb)).toEqual(rows);
        expect(toRgba(ra, 0, H).data.equals(full(a))).toBe(true);
        expect(toRgba(rb, 0, H).data.equals(full(b))).toBe(true);
      }
    }
  });

  it('an RGB and an RGBA encoding of the same pixels match; of different pixels, count as pixelmatch does', () => {
    const rgb = encode(w, h, base, 2);
    const rgba = encode(w, h, base, 6);
    expect(comparePngs(rgb, rgba).diffPixels).toBe(0);
    const other = PNG.sync.read(changed(25)).data;
    const otherRgba = encode(w, h, other, 6);
    expect(comparePngs(rgb, otherRgba, { maxDiffPixelRatio: 1 }).diffPixels).toBe(pixelmatch(PNG.sync.read(rgb).data, other, null, w, h, { threshold: 0.2 }));
  });

  it('the diff image of a failed comparison is the one diffImage draws from scratch', () => {
    const actual = changed(30);
    const r = comparePngs(expectedPng, actual);
    const [, diffPath] = writeMismatchArtifacts(join(temp.dir, 'reuse', 'screen.png'), expectedPng, actual, r);
    expect(readFileSync(diffPath).equals(diffImage(expectedPng, actual))).toBe(true);
  });

  it('writes <golden>.actual.png and <golden>.diff.png beside the golden', () => {
    const golden = join(temp.dir, 'shots', 'screen.png');
    const actual = changed(10);
    const r = comparePngs(expectedPng, actual);
    const files = writeMismatchArtifacts(golden, expectedPng, actual, r);
    expect(files).toEqual([join(temp.dir, 'shots', 'screen.actual.png'), join(temp.dir, 'shots', 'screen.diff.png')]);
    expect(readFileSync(files[0]).equals(actual)).toBe(true);
    expect(pngSize(readFileSync(files[1]))).toEqual({ width: w, height: h });
    const sized = writeMismatchArtifacts(join(temp.dir, 'sized.png'), expectedPng, encode(3, 3, image(3, 3, 1)), comparePngs(expectedPng, encode(3, 3, image(3, 3, 1))));
    expect(sized).toEqual([join(temp.dir, 'sized.actual.png')]);
    expect(existsSync(join(temp.dir, 'sized.diff.png'))).toBe(false);
  });
});
