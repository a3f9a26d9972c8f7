import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import pngjs from 'pngjs';
import pixelmatch from 'pixelmatch';
import { comparePngs, countDiffPixels, diffImage, writeMismatchArtifacts } from '../../src/render/pixel/diff.js';
import { decodePng, differingRows, inflatePng, pngSize, toRgba } from '../../src/render/pixel/png.js';
import { tempDir } from '../helpers/cli.js';
import { pngChunk } from '../helpers/png-chunks.js';

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

  it('reverses Up and Paeth over runs of zero bytes (a flat screen with marks) exactly as pngjs does, at every width', () => {
    // Runs that repeat the row above are copied whole: short and long runs, runs reaching the row's
    // end, widths that are not a multiple of four, the first row (nothing above it), marks in row 0.
    // A black background makes zero runs in the first row too.
    for (const [width, background] of [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 67, 130].flatMap((w) => [[w, [12, 12, 16, 255]], [w, [0, 0, 0, 255]]] as const)) {
      const height = 9;
      const raw = Buffer.alloc(width * height * 4);
      // Vertical strokes in rows 2-7 (so runs repeat a row above that is not flat), one pixel of
      // each row changed (so no row is all zero bytes, which png.ts copies whole).
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) raw.set(y >= 2 && y <= 7 && x % 5 === 1 ? [200, 180, 40 + x, 255] : background, (y * width + x) * 4);
        raw.set([90, 200 - y, 7 * y, 255], (y * width + ((y * 7) % width)) * 4);
      }
      for (const colorType of [2, 6]) {
        for (const filterType of [2, 4]) {
          const png = PNG.sync.write({ width, height, data: raw }, { colorType, filterType } as never);
          expect(decodePng(png).data.equals(PNG.sync.read(png).data), `width ${width}, background ${background}, colour type ${colorType}, filter ${filterType}`).toBe(true);
        }
      }
    }
  });

  it('unfilters blank rows (copied from above or filled) and rows of other alpha as pngjs decodes them (every filter, RGB and RGBA)', () => {
    const width = 29;
    const height = 12;
    for (const colorType of [2, 6]) {
      const raw = image(width, height, 3 + colorType);
      // Rows 2-4 blank (all zero bytes once filtered), 5 opaque but for one pixel, 9 alpha 254 throughout.
      for (let y = 2; y <= 4; y++) raw.fill(0, y * width * 4, (y + 1) * width * 4);
      raw[(5 * width + 17) * 4 + 3] = 128;
      for (let x = 0; x < width; x++) raw[(9 * width + x) * 4 + 3] = 254;
      for (const filterType of [0, 1, 2, 3, 4]) {
        const png = PNG.sync.write({ width, height, data: raw }, { colorType, filterType } as never);
        const rows = inflatePng(png);
        expect(rows).not.toBeNull();
        if (!rows) continue;
        const pixels = PNG.sync.read(png).data;
        expect(Buffer.from(toRgba(rows, 0, height).data).equals(pixels), `colour type ${colorType}, filter ${filterType}`).toBe(true);
        if (colorType === 6) expect(Array.from({ length: height }, (_, y) => pixels[(y * width) * 4 + 3]).filter((a) => a !== 255).length).toBe(4); // rows 2-4 and 9 start translucent
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

/**
 * Every verdict of comparePngs against the plain way: pngjs decodes both files
 * whole and pixelmatch compares them. Terminal-like images (rows of glyphs
 * between blank rows) give the scanlines the fast path treats specially: rows
 * of zeros under every filter (a blank row under a blank row, a black or
 * transparent first row) and rows that differ only in part.
 */
describe('comparePngs agrees with pngjs + pixelmatch', () => {
  /** A screen of `cols` x `lines` cells of 4x5 px; `seed` picks the glyphs, `changed` cells get other ones. */
  function screen(width: number, height: number, opts: { seed: number; bg: number[]; changed?: Set<number> }): Buffer {
    const data = Buffer.alloc(width * height * 4);
    for (let i = 0; i < data.length; i += 4) data.set(opts.bg, i);
    let s = opts.seed;
    const rand = () => ((s = (s * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
    // Glyph rows 1-3 of each 5-px line: rows 0 and 4 stay background (zero scanlines under Up and Paeth).
    for (let cy = 0; cy * 5 < height; cy++) {
      for (let cx = 0; cx * 4 < width; cx++) {
        const glyph = rand();
        if (glyph < 100) continue;
        const alt = opts.changed?.has(cy * 1000 + cx) ? 3 : 0;
        for (let y = 1; y < 4; y++) for (let x = 0; x < 3; x++) {
          const px = cx * 4 + x;
          const py = cy * 5 + y;
          if (px >= width || py >= height || ((x * 5 + y * 3 + glyph + alt) % 4) === 0) continue;
          // Colours from the glyph, anti-aliased-looking greys at the glyph's edge.
          const edge = x === 2 ? 0.5 : 1;
          data.set([Math.round((glyph * 7) % 256 * edge), Math.round(200 * edge), Math.round((glyph * 3) % 256 * edge), 255], (py * width + px) * 4);
        }
      }
    }
    return data;
  }

  const full = (png: Buffer) => PNG.sync.read(png).data;

  it('counts, passes and fails as pixelmatch does on the whole decoded images (RGB, RGBA, every filter, odd sizes)', () => {
    const zeroRows = new Set<string>();
    let compared = 0;
    for (const [width, height] of [[37, 23], [1, 9], [64, 41], [5, 1]]) {
      for (const colorType of [2, 6]) {
        // Black (transparent for RGBA): blank rows are zero bytes even unfiltered; grey-blue: only filtered.
        for (const bg of colorType === 6 ? [[0, 0, 0, 0], [12, 12, 16, 255], [40, 40, 60, 128]] : [[0, 0, 0, 255], [12, 12, 16, 255]]) {
          const base = screen(width, height, { seed: 5, bg });
          const variants = [
            Buffer.from(base), // the same pixels
            screen(width, height, { seed: 5, bg, changed: new Set([0, 1001, 2003]) }), // a few cells
            screen(width, height, { seed: 77, bg }), // another screen
            (() => { const d = Buffer.from(base); d[d.length - 4] ^= 0xff; return d; })(), // the last pixel
            (() => { const d = Buffer.from(base); d[0] ^= 0x40; d[5] ^= 0x01; return d; })(), // first row, one far and one near colour
          ];
          for (const filterType of [0, 1, 2, 3, 4, -1]) {
            const write = (data: Buffer) => PNG.sync.write({ width, height, data }, { colorType, filterType } as never);
            const a = write(base);
            const ra = inflatePng(a)!;
            for (let y = 0; y < height; y++) {
              const s = y * (ra.stride + 1);
              if (ra.raw.subarray(s + 1, s + 1 + ra.stride).every((v) => v === 0)) zeroRows.add(`${ra.raw[s]}${y === 0 ? ' first' : ''}`);
            }
            expect(decodePng(a).data.equals(full(a))).toBe(true);
            for (const data of variants) {
              const b = write(data);
              for (const threshold of [0, 0.2]) {
                const expected = pixelmatch(full(a), full(b), null, width, height, { threshold });
                const r = comparePngs(a, b, { threshold, maxDiffPixelRatio: 1 });
                expect(r.diffPixels).toBe(expected);
                expect(comparePngs(a, b, { threshold }).pass).toBe(expected === 0);
                expect(comparePngs(b, a, { threshold, maxDiffPixelRatio: 1 }).diffPixels).toBe(pixelmatch(full(b), full(a), null, width, height, { threshold }));
                compared++;
              }
            }
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(500);
    // The special cases were there to be taken: zero scanlines under None, Sub, Up and Paeth, and as the first row.
    for (const kind of ['0', '1', '2', '4', '0 first', '1 first', '2 first', '3 first', '4 first']) expect(zeroRows).toContain(kind);
  });

  it('draws the diff image pixelmatch draws on the whole decoded images', () => {
    for (const colorType of [2, 6]) {
      for (const filterType of [1, 4, -1]) {
        const bg = colorType === 6 ? [0, 0, 0, 0] : [12, 12, 16, 255];
        const write = (data: Buffer) => PNG.sync.write({ width: 45, height: 27, data }, { colorType, filterType } as never);
        const a = write(screen(45, 27, { seed: 9, bg }));
        for (const b of [write(screen(45, 27, { seed: 9, bg, changed: new Set([2, 1003]) })), write(screen(45, 27, { seed: 31, bg }))]) {
          const out = Buffer.alloc(45 * 27 * 4);
          pixelmatch(full(a), full(b), out, 45, 27, { threshold: 0.2 });
          expect(full(diffImage(a, b)).equals(out)).toBe(true);
        }
      }
    }
  });

  it('palette, grey, 16-bit and interlaced PNGs (decoded by pngjs) count as pixelmatch does', () => {
    const width = 19;
    const height = 13;
    const pixels = (seed: number) => screen(width, height, { seed, bg: [12, 12, 16, 255] });
    const pairs: Array<[Buffer, Buffer]> = [
      [handPng(pixels(3), width, height, 'palette'), handPng(pixels(4), width, height, 'palette')],
      [handPng(pixels(3), width, height, 'interlaced'), handPng(pixels(4), width, height, 'interlaced')],
      [handPng(pixels(3), width, height, 'interlaced'), PNG.sync.write({ width, height, data: pixels(3) }, { colorType: 2 } as never)],
      [PNG.sync.write({ width, height, data: pixels(3) }, { colorType: 0 } as never), PNG.sync.write({ width, height, data: pixels(4) }, { colorType: 0 } as never)],
      [PNG.sync.write({ width, height, data: pixels(3) }, { colorType: 6, bitDepth: 16 } as never), PNG.sync.write({ width, height, data: pixels(4) }, { colorType: 2 } as never)],
    ];
    for (const [a, b] of pairs) {
      expect(decodePng(a).data.equals(full(a))).toBe(true);
      const expected = pixelmatch(full(a), full(b), null, width, height, { threshold: 0.2 });
      expect(comparePngs(a, b, { maxDiffPixelRatio: 1 }).diffPixels).toBe(expected);
    }
    // The pairs were not all alike, and the interlaced file holds what the plain one does.
    expect(pixelmatch(full(pairs[0][0]), full(pairs[0][1]), null, width, height)).toBeGreaterThan(0);
    expect(comparePngs(pairs[2][0], pairs[2][1]).diffPixels).toBe(0);
  });
});

/** A PNG pngjs cannot write: 8-bit palette (one entry per colour), or RGB interlaced (Adam7), every row filter None. */
function handPng(rgba: Buffer, width: number, height: number, kind: 'palette' | 'interlaced'): Buffer {
  const chunk = pngChunk;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = kind === 'palette' ? 3 : 2;
  ihdr[12] = kind === 'interlaced' ? 1 : 0;
  const chunks = [chunk('IHDR', ihdr)];
  const rows: number[] = [];
  if (kind === 'palette') {
    const colours = new Map<number, number>();
    const palette: number[] = [];
    for (let y = 0; y < height; y++) {
      rows.push(0);
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 4;
        const key = rgba.readUIntBE(i, 3);
        if (!colours.has(key)) {
          colours.set(key, colours.size);
          palette.push(rgba[i], rgba[i + 1], rgba[i + 2]);
        }
        rows.push(colours.get(key)!);
      }
    }
    if (colours.size > 256) throw new Error('too many colours for a palette');
    chunks.push(chunk('PLTE', Buffer.from(palette)));
  } else {
    // Adam7: seven passes over the image, each its own rows of the pixels it picks.
    const passes = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];
    for (const [x0, y0, dx, dy] of passes) {
      if (x0 >= width) continue;
      for (let y = y0; y < height; y += dy) {
        rows.push(0);
        for (let x = x0; x < width; x += dx) rows.push(...rgba.subarray((y * width + x) * 4, (y * width + x) * 4 + 3));
      }
    }
  }
  chunks.push(chunk('IDAT', deflateSync(Buffer.from(rows))), chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ...chunks]);
}
