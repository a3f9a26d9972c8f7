import { inflateSync } from 'node:zlib';
import pngjs from 'pngjs';

/**
 * PNG decoding for comparisons. Chromium writes 8-bit RGB or RGBA,
 * non-interlaced PNGs; those take a fast path (zlib inflate + a tight unfilter
 * loop, several times faster than pngjs's general decoder); anything else
 * (palette, 16-bit, interlaced, grey) goes through pngjs.
 */
const { PNG } = pngjs;

export interface RgbaImage {
  width: number;
  height: number;
  /** width * height * 4 bytes, RGBA. */
  data: Buffer;
}

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
  const { width, height } = pngSize(png);
  const bitDepth = png[24];
  const colorType = png[25];
  const interlace = png[28];
  if (bitDepth === 8 && (colorType === 2 || colorType === 6) && interlace === 0) return decodeFast(png, width, height, colorType === 6 ? 4 : 3);
  try {
    const img = PNG.sync.read(png);
    return { width: img.width, height: img.height, data: img.data };
  } catch (err) {
    throw new PngError(`cannot decode PNG: ${(err as Error).message}`);
  }
}

export function encodePng(img: RgbaImage): Buffer {
  return PNG.sync.write({ width: img.width, height: img.height, data: img.data });
}

function decodeFast(png: Buffer, width: number, height: number, bpp: number): RgbaImage {
  const idat: Buffer[] = [];
  for (let off = 8; off + 8 <= png.length; ) {
    const len = png.readUInt32BE(off);
    const type = png.toString('latin1', off + 4, off + 8);
    if (type === 'IDAT') idat.push(png.subarray(off + 8, off + 8 + len));
    if (type === 'IEND') break;
    off += 12 + len;
  }
  let raw: Buffer;
  try {
    raw = inflateSync(idat.length === 1 ? idat[0] : Buffer.concat(idat));
  } catch (err) {
    throw new PngError(`cannot decode PNG: ${(err as Error).message}`);
  }
  const stride = width * bpp;
  if (raw.length < (stride + 1) * height) throw new PngError('cannot decode PNG: image data is truncated');
  unfilter(raw, stride, height, bpp);
  const out = Buffer.allocUnsafe(width * height * 4);
  for (let y = 0; y < height; y++) {
    let s = y * (stride + 1) + 1;
    let d = y * width * 4;
    if (bpp === 4) {
      raw.copy(out, d, s, s + stride);
      continue;
    }
    for (let x = 0; x < width; x++, s += 3, d += 4) {
      out[d] = raw[s];
      out[d + 1] = raw[s + 1];
      out[d + 2] = raw[s + 2];
      out[d + 3] = 255;
    }
  }
  return { width, height, data: out };
}

/** Reverses PNG's per-row filters in place (the filter byte stays, unused). */
function unfilter(raw: Buffer, stride: number, height: number, bpp: number): void {
  for (let y = 0; y < height; y++) {
    const row = y * (stride + 1);
    const filter = raw[row];
    const cur = row + 1;
    const prev = cur - (stride + 1); // only read when y > 0
    switch (filter) {
      case 0:
        break;
      case 1:
        for (let i = bpp; i < stride; i++) raw[cur + i] = (raw[cur + i] + raw[cur + i - bpp]) & 0xff;
        break;
      case 2:
        if (y > 0) for (let i = 0; i < stride; i++) raw[cur + i] = (raw[cur + i] + raw[prev + i]) & 0xff;
        break;
      case 3:
        for (let i = 0; i < stride; i++) {
          const left = i >= bpp ? raw[cur + i - bpp] : 0;
          const up = y > 0 ? raw[prev + i] : 0;
          raw[cur + i] = (raw[cur + i] + ((left + up) >> 1)) & 0xff;
        }
        break;
      case 4:
        for (let i = 0; i < stride; i++) {
          const a = i >= bpp ? raw[cur + i - bpp] : 0;
          const b = y > 0 ? raw[prev + i] : 0;
          const c = i >= bpp && y > 0 ? raw[prev + i - bpp] : 0;
          const p = a + b - c;
          const pa = Math.abs(p - a);
          const pb = Math.abs(p - b);
          const pc = Math.abs(p - c);
          raw[cur + i] = (raw[cur + i] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
        }
        break;
      default:
        throw new PngError(`cannot decode PNG: unknown row filter ${filter}`);
    }
  }
}
