import { endianness } from 'node:os';
import { inflateSync } from 'node:zlib';
import { lazyPackage } from '../core/lazy-package.js';

/**
 * PNG decoding for comparisons. Chromium writes 8-bit RGB or RGBA,
 * non-interlaced PNGs; those take a fast path (one zlib inflate into a buffer
 * of the exact size, then PNG's row filters reversed only for the rows that
 * are asked for); anything else (palette, 16-bit, interlaced, grey) goes
 * through pngjs.
 */
// Only PNGs off Chromium's fast path need pngjs: loaded then.
const pngjs = lazyPackage<typeof import('pngjs').default>('pngjs');

export interface RgbaImage {
  width: number;
  height: number;
  /** width * height * 4 bytes, RGBA. */
  data: Buffer;
}

/**
 * An inflated fast-path PNG: its scanlines, each a filter byte and `stride`
 * bytes. Rows are unfiltered in place on demand (`done` marks which), so a
 * comparison can leave the identical rest of an image untouched.
 */
export interface PngRows {
  width: number;
  height: number;
  /** Bytes per pixel: 3 (RGB) or 4 (RGBA). */
  bpp: 3 | 4;
  stride: number;
  raw: Uint8Array;
  done: Uint8Array;
}

const LITTLE_ENDIAN = endianness() === 'LE';
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export class PngError extends Error {}

/** Width and height from the IHDR chunk, without decoding. */
export function pngSize(png: Buffer): { width: number; height: number } {
  if (png.length < 24 || !png.subarray(0, 8).equals(SIGNATURE) || png.toString('latin1', 12, 16) !== 'IHDR') {
    throw new PngError('not a PNG file');
  }
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

export function decodePng(png: Buffer): RgbaImage {
  const rows = inflatePng(png);
  if (rows) return toRgba(rows, 0, rows.height);
  try {
    const img = pngjs().PNG.sync.read(png);
    return { width: img.width, height: img.height, data: img.data };
  } catch (err) {
    throw new PngError(`cannot decode PNG: ${(err as Error).message}`);
  }
}

export function encodePng(img: RgbaImage): Buffer {
  return pngjs().PNG.sync.write({ width: img.width, height: img.height, data: img.data });
}

/** The inflated scanlines of an 8-bit RGB/RGBA non-interlaced PNG; null for any other kind (use decodePng). */
export function inflatePng(png: Buffer): PngRows | null {
  const { width, height } = pngSize(png);
  const bitDepth = png[24];
  const colorType = png[25];
  const interlace = png[28];
  if (!(bitDepth === 8 && (colorType === 2 || colorType === 6) && interlace === 0)) return null;
  const bpp = colorType === 6 ? 4 : 3;
  const idat: Buffer[] = [];
  for (let off = 8; off + 8 <= png.length; ) {
    const len = png.readUInt32BE(off);
    const type = png.toString('latin1', off + 4, off + 8);
    if (type === 'IDAT') idat.push(png.subarray(off + 8, off + 8 + len));
    if (type === 'IEND') break;
    off += 12 + len;
  }
  const stride = width * bpp;
  const size = (stride + 1) * height;
  let raw: Buffer;
  try {
    // One output buffer a little larger than the image data: zlib never has to
    // grow it, and Node returns it without concatenating 16 KB pieces.
    raw = inflateSync(idat.length === 1 ? idat[0] : Buffer.concat(idat), { chunkSize: Math.max(64, size + 64) });
  } catch (err) {
    throw new PngError(`cannot decode PNG: ${(err as Error).message}`);
  }
  if (raw.length < size) throw new PngError('cannot decode PNG: image data is truncated');
  return { width, height, bpp, stride, raw: new Uint8Array(raw.buffer, raw.byteOffset, size), done: new Uint8Array(height) };
}

/** Unfilters row y, and before it any rows above that it depends on and that are still filtered. */
export function unfilterRows(img: PngRows, y: number): void {
  const { raw, done, stride } = img;
  if (done[y]) return;
  // Walk up to a row that needs no row above it: the first row, a row whose
  // filter is None or Sub, or one below an already unfiltered row.
  let from = y;
  while (from > 0 && !done[from - 1] && raw[from * (stride + 1)] > 1) from--;
  for (let r = from; r <= y; r++) if (!done[r]) unfilterRow(img, r);
}

/** Rows [top, bottom) as RGBA (unfiltering what is needed). */
export function toRgba(img: PngRows, top: number, bottom: number): RgbaImage {
  const { width, stride, bpp, raw } = img;
  const out = Buffer.allocUnsafe(width * (bottom - top) * 4);
  // RGBA as little-endian words; Buffer.allocUnsafe's memory is 8-byte aligned.
  const out32 = bpp === 3 && LITTLE_ENDIAN && out.byteOffset % 4 === 0 ? new Uint32Array(out.buffer, out.byteOffset, out.length >> 2) : null;
  for (let y = top; y < bottom; y++) {
    unfilterRows(img, y);
    let s = y * (stride + 1) + 1;
    let d = (y - top) * width * 4;
    if (bpp === 4) {
      out.set(raw.subarray(s, s + stride), d);
      continue;
    }
    if (out32) {
      // One store per pixel (about twice as fast as four byte stores).
      for (let x = 0, p = d >> 2; x < width; x++, s += 3, p++) out32[p] = (raw[s] | (raw[s + 1] << 8) | (raw[s + 2] << 16) | 0xff000000) >>> 0;
      continue;
    }
    for (let x = 0; x < width; x++, s += 3, d += 4) {
      out[d] = raw[s];
      out[d + 1] = raw[s + 1];
      out[d + 2] = raw[s + 2];
      out[d + 3] = 255;
    }
  }
  return { width, height: bottom - top, data: out };
}

/**
 * The rows whose pixels differ between two images of the same size and kind,
 * in order, unfiltering as few rows as it can: a row whose filtered bytes are
 * equal in both images holds the same pixels when the row above does (or when
 * its filter does not look up), so such rows are passed over without
 * reversing their filters.
 */
export function differingRows(a: PngRows, b: PngRows): number[] {
  if (a.width !== b.width || a.height !== b.height || a.bpp !== b.bpp) throw new Error('differingRows: images of different size or kind');
  const line = a.stride + 1;
  const ra = a.raw;
  const rb = b.raw;
  const rows: number[] = [];
  let aboveEqual = true; // the row above holds the same pixels in both (true above the first row)
  for (let y = 0; y < a.height; y++) {
    const o = y * line;
    if (!a.done[y] && !b.done[y] && (aboveEqual || ra[o] <= 1) && Buffer.compare(ra.subarray(o, o + line), rb.subarray(o, o + line)) === 0) {
      aboveEqual = true;
      continue;
    }
    unfilterRows(a, y);
    unfilterRows(b, y);
    aboveEqual = Buffer.compare(ra.subarray(o + 1, o + line), rb.subarray(o + 1, o + line)) === 0;
    if (!aboveEqual) rows.push(y);
  }
  return rows;
}

/** Reverses PNG's filter on one row in place; the row above is already unfiltered. */
function unfilterRow(img: PngRows, y: number): void {
  const { raw, stride, bpp } = img;
  const row = y * (stride + 1);
  const filter = raw[row];
  const cur = row + 1;
  const prev = cur - (stride + 1); // only read when y > 0
  const end = cur + stride;
  // raw is a Uint8Array: stores wrap modulo 256 by themselves.
  switch (filter) {
    case 0:
      break;
    case 1:
      for (let i = cur + bpp; i < end; i++) raw[i] += raw[i - bpp];
      break;
    case 2:
      if (y > 0) for (let i = cur, j = prev; i < end; i++, j++) raw[i] += raw[j];
      break;
    case 3:
      if (y > 0) {
        for (let i = cur, j = prev; i < cur + bpp; i++, j++) raw[i] += raw[j] >> 1;
        for (let i = cur + bpp, j = prev + bpp; i < end; i++, j++) raw[i] += (raw[i - bpp] + raw[j]) >> 1;
      } else {
        for (let i = cur + bpp; i < end; i++) raw[i] += raw[i - bpp] >> 1;
      }
      break;
    case 4:
      if (y > 0) {
        // One channel at a time, so left and upper-left stay in locals. In the
        // first pixel they are 0 and Paeth picks the byte above.
        for (let k = 0; k < bpp; k++) {
          let i = cur + k;
          let j = prev + k;
          let c = raw[j];
          let a = (raw[i] + c) & 0xff;
          raw[i] = a;
          for (i += bpp, j += bpp; i < end; i += bpp, j += bpp) {
            const b = raw[j];
            let p: number;
            // Flat areas and straight edges (most of a terminal) decide early:
            // a = c gives pb = 0, so b; b = c gives pa = 0, so a.
            if (a === c) p = b;
            else if (b === c) p = a;
            else {
              let pa = b - c;
              if (pa < 0) pa = -pa;
              let pb = a - c;
              if (pb < 0) pb = -pb;
              let pc = a + b - c - c;
              if (pc < 0) pc = -pc;
              p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
            }
            a = (raw[i] + p) & 0xff;
            raw[i] = a;
            c = b;
          }
        }
      } else {
        // Above is 0: Paeth picks the byte to the left, as Sub does.
        for (let i = cur + bpp; i < end; i++) raw[i] += raw[i - bpp];
      }
      break;
    default:
      throw new PngError(`cannot decode PNG: unknown row filter ${filter}`);
  }
  img.done[y] = 1;
}
