import { describe, expect, it } from 'vitest';
import { constants, deflateSync, inflateRawSync, inflateSync } from 'node:zlib';
import pngjs from 'pngjs';
import pixelmatch from 'pixelmatch';
import { comparePngs } from '../../src/render/pixel/diff.js';
import { ALIGN, commonPrefix, inflatePair } from '../../src/render/pixel/inflate-pair.js';
import { decodePng, idatChunks, PngError } from '../../src/render/pixel/png.js';
import { withIdat } from '../helpers/png-chunks.js';

// render/pixel/inflate-pair.ts inflates the compressed bytes two PNGs start
// with once and resumes the second stream at a deflate block boundary inside
// them. These hold it to inflating each stream whole: the same bytes out, the
// same errors, for every bit a boundary can fall on.

const { PNG } = pngjs;
const W = 256;
const H = 192;

/** A terminal-like screen of 8x16 cells (glyphs as dot patterns, a colour each); `changed` cells ("col,line") get other dots. */
function screen(changed: Set<string>, seed = 42): Buffer {
  const data = Buffer.alloc(W * H * 4);
  for (let i = 0; i < data.length; i += 4) data.set([12, 12, 16, 255], i);
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
  for (let cy = 0; cy < H / 16; cy++) {
    for (let cx = 0; cx < W / 8; cx++) {
      const glyph = rand();
      if (glyph < 40) continue;
      const colour = [rand(), rand(), rand(), 255];
      const alt = changed.has(`${cx},${cy}`) ? 2 : 0;
      for (let y = 3; y < 14; y++) for (let x = 1; x < 7; x++) {
        if ((x * 7 + y * 3 + glyph + alt) % 5 > 1) continue;
        data.set(colour, ((cy * 16 + y) * W + cx * 8 + x) * 4);
      }
    }
  }
  return data;
}

type Encoding = { colorType: 2 | 6; filterType: number };
const encode = (data: Buffer, e: Encoding = { colorType: 6, filterType: -1 }) => PNG.sync.write({ width: W, height: H, data }, e as never);
const idat = (png: Buffer) => Buffer.concat(idatChunks(png));
/** A PNG's filtered scanlines. */
const scanlines = (png: Buffer) => inflateSync(idat(png));
const outputs = (size: number): [Buffer, Buffer] => [Buffer.alloc(size + 64), Buffer.alloc(size + 64)];
const reference = (a: Buffer, b: Buffer) => pixelmatch(PNG.sync.read(a).data, PNG.sync.read(b).data, null, W, H, { threshold: 0.2 });
/** What inflating the stream whole throws, or null. */
const wholeError = (data: Buffer) => {
  try {
    inflateSync(data);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
};
/** zlib with memLevel 1 ends a block every 128 symbols: block boundaries on every bit, close to any change. */
const SMALL_BLOCKS = { memLevel: 1 };

/** 16 screens, each with one to three cells changed below the fourth line. */
function changedScreens(): Array<Set<string>> {
  return Array.from({ length: 16 }, (_, t) => new Set(Array.from({ length: 1 + (t % 3) }, (_, i) => `${(t * 13 + i * 7) % 32},${4 + ((t * 5 + i * 3) % 8)}`)));
}

describe('inflatePair', () => {
  it('inflates both streams as inflating each whole does, resuming the second at boundaries on each bit of a byte, mid-row', () => {
    const base = scanlines(encode(screen(new Set())));
    const bits = new Set<number>();
    let resumed = 0;
    let midRow = 0;
    let pairs = 0;
    for (const cells of changedScreens()) {
      const changed = scanlines(encode(screen(cells)));
      // zlib's defaults end the first block after most of the image (shared bytes: a few); pngjs deflates with Z_RLE.
      for (const options of [SMALL_BLOCKS, { memLevel: 2, level: 6 }, { memLevel: 4, level: 1 }, { strategy: constants.Z_RLE, level: 9 }, {}]) {
        const [da, db] = [deflateSync(base, options), deflateSync(changed, options)];
        const pair = inflatePair(da, db, ...outputs(base.length))!;
        expect(pair.a.equals(base)).toBe(true);
        expect(pair.b.equals(changed)).toBe(true);
        pairs++;
        if (pair.shared === 0) continue;
        resumed++;
        bits.add(pair.bit % 8);
        if (pair.shared % (W * 4 + 1) !== 0) midRow++;
        expect(pair.bit >> 3).toBeLessThanOrEqual(commonPrefix(da, db));
      }
    }
    expect(pairs).toBe(80);
    expect([...bits].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(resumed).toBeGreaterThan(40);
    expect(midRow).toBeGreaterThan(30);
  });

  it('counts what pngjs + pixelmatch count: RGB and RGBA, every filter, as pngjs writes them, in small and in stored blocks, in many IDAT chunks', () => {
    let resumed = 0;
    let cases = 0;
    const cells = new Set(['27,7', '14,10']); // from row 115: 88 KB of RGB scanlines shared
    for (const colorType of [2, 6] as const) {
      for (const filterType of [0, 1, 2, 3, 4, -1]) {
        const e = { colorType, filterType };
        const [a, b] = [encode(screen(new Set()), e), encode(screen(cells), e)];
        const [sa, sb] = [scanlines(a), scanlines(b)];
        const small = [deflateSync(sa, SMALL_BLOCKS), deflateSync(sb, SMALL_BLOCKS)];
        if (inflatePair(small[0], small[1], ...outputs(sa.length))!.shared > 0) resumed++;
        const pairs = [
          [a, b],
          // Chromium writes 8 KB IDAT chunks; 1000 bytes puts chunk ends inside the shared bytes too.
          [withIdat(a, small[0], 1000), withIdat(b, small[1], 8192)],
          [withIdat(a, deflateSync(sa, { level: 0 })), withIdat(b, deflateSync(sb, { level: 0 }), 5000)],
        ];
        for (const [pa, pb] of pairs) {
          const want = reference(pa, pb);
          expect(want).toBeGreaterThan(0);
          expect(comparePngs(pa, pb, { maxDiffPixelRatio: 1 }).diffPixels).toBe(want);
          expect(comparePngs(pb, pa, { maxDiffPixelRatio: 1 }).diffPixels).toBe(reference(pb, pa));
          cases++;
        }
      }
    }
    expect(cases).toBe(36);
    expect(resumed).toBe(12);
  });

  it('a second stream corrupt, truncated or with a wrong checksum after the shared bytes fails with the error of inflating it whole', () => {
    const [pa, pb] = [encode(screen(new Set())), encode(screen(changedScreens()[2]))];
    const [da, db] = [deflateSync(scanlines(pa), SMALL_BLOCKS), deflateSync(scanlines(pb), SMALL_BLOCKS)];
    const [a, b] = [withIdat(pa, da), withIdat(pb, db)];
    expect(inflatePair(da, db, ...outputs(scanlines(pa).length))!.shared).toBeGreaterThan(0);
    const same = commonPrefix(da, db);
    const mid = same + ((db.length - same) >> 1);
    const flipped = (data: Buffer, at: number, bits: number) => {
      const d = Buffer.from(data);
      d[at] ^= bits;
      return d;
    };
    const bad = [
      ...[0x01, 0x10, 0xff].map((bits) => flipped(db, mid, bits)),
      ...[1, 3, 9].map((k) => flipped(db, same + k, 0x04)),
      flipped(db, db.length - 1, 0x01), // the Adler-32
      db.subarray(0, mid), // truncated
      db.subarray(0, db.length - 2), // the checksum cut short
    ];
    const errors = new Set<string>();
    for (const data of bad) {
      const message = wholeError(data);
      expect(message).not.toBeNull();
      errors.add(message!);
      const png = withIdat(b, data);
      expect(() => decodePng(png)).toThrow(`cannot decode PNG: ${message}`);
      expect(() => comparePngs(a, png)).toThrow(PngError);
      expect(() => comparePngs(a, png)).toThrow(`cannot decode PNG: ${message}`);
      // The first stream fails as itself.
      expect(() => comparePngs(withIdat(a, data), b)).toThrow(`cannot decode PNG: ${message}`);
    }
    expect(errors).toContain('incorrect data check');
    expect(errors).toContain('unexpected end of file');
    // Bytes after the stream's end are ignored, as inflating it whole ignores them.
    const padded = withIdat(b, Buffer.concat([db, Buffer.from([1, 2, 3])]));
    expect(comparePngs(a, padded, { maxDiffPixelRatio: 1 }).diffPixels).toBe(reference(a, b));
  });

  it('resumes only where one bit alone reproduces the first stream: not after a block whose last bits read as the next one', () => {
    // 77,401 bytes in a fixed-code block ending with its end code (seven zero bits), then:
    //   stored  its header is zero bits too, so the block reads the same from any of the 8 bits: no resuming;
    //   fixed   read from any other bit, its header starts no block that reproduces it: resumed.
    for (const next of ['stored', 'fixed'] as const) {
      const stream = (variant: number) => {
        const w = new Bits();
        w.put(0, 1), w.put(1, 2), w.literal(0x78);
        for (let i = 0; i < 300; i++) w.code(0xc5, 8), w.code(0, 5); // length 258, distance 1
        w.code(0, 7);
        const data = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7 + variant) & 0x7f));
        if (next === 'stored') w.put(0, 3), w.stored(data);
        else {
          w.put(0, 1), w.put(1, 2);
          for (const v of data) w.literal(v);
          w.code(0, 7);
        }
        w.put(1, 3), w.stored(Buffer.from('end'));
        const raw = w.bytes();
        const out = inflateRawSync(raw);
        const check = Buffer.alloc(4);
        check.writeUInt32BE(adler32(out));
        return Buffer.concat([Buffer.from([0x78, 0x01]), raw, check]);
      };
      const [da, db] = [stream(0), stream(1)];
      const pair = inflatePair(da, db, ...outputs(90_000))!;
      expect(pair.a.equals(inflateSync(da))).toBe(true);
      expect(pair.b.equals(inflateSync(db))).toBe(true);
      expect(pair.shared).toBe(next === 'stored' ? 0 : 77_401);
    }
  });

  it('ALIGN[b]: empty blocks after which the next block starts at bit b of a byte', () => {
    for (let b = 1; b < 8; b++) {
      const w = new Bits();
      for (let i = 0; i < (ALIGN[b].length - 1) * 8 + b; i++) w.put((ALIGN[b][i >> 3] >> (i & 7)) & 1, 1);
      w.put(1, 1), w.put(1, 2), w.literal(0x41), w.code(0, 7);
      expect(inflateRawSync(w.bytes()).toString()).toBe('A');
      // The bits past b are free: the next block's first bits go there.
      expect(ALIGN[b][ALIGN[b].length - 1] >> b).toBe(0);
    }
  });
});

/** A deflate bit stream written by hand (fields least significant bit first, Huffman codes most significant first). */
class Bits {
  private bits: number[] = [];
  put(v: number, n: number): void {
    for (let i = 0; i < n; i++) this.bits.push((v >> i) & 1);
  }
  code(v: number, n: number): void {
    for (let i = n - 1; i >= 0; i--) this.bits.push((v >> i) & 1);
  }
  /** A literal byte in the fixed code. */
  literal(v: number): void {
    if (v < 144) this.code(0x30 + v, 8);
    else this.code(0x190 + v - 144, 9);
  }
  /** A stored block's body, after its header bits: to the byte, length, its complement, the bytes. */
  stored(data: Buffer): void {
    while (this.bits.length % 8) this.bits.push(0);
    this.put(data.length, 16);
    this.put(~data.length & 0xffff, 16);
    for (const v of data) this.put(v, 8);
  }
  bytes(): Buffer {
    const out = Buffer.alloc(Math.ceil(this.bits.length / 8));
    for (const [i, bit] of this.bits.entries()) out[i >> 3] |= bit << (i & 7);
    return out;
  }
}

function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (const v of data) {
    a = (a + v) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}
