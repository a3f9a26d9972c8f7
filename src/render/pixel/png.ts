import { endianness } from 'node:os';
import { constants as zlibConstants, Inflate, inflateSync } from 'node:zlib';
import { optionalPackage } from '../../core/lazy-package.js';
import { inflatePair } from './inflate-pair.js';
import { unfilterInto } from './unfilter.js';

/**
 * PNG decoding for comparisons. Chromium writes 8-bit RGB or RGBA,
 * non-interlaced PNGs; those take a fast path (one zlib inflate into a buffer
 * of the exact size, then PNG's row filters reversed straight into RGBA, only
 * for the rows that are asked for: pixel/unfilter.ts); anything else
 * (palette, 16-bit, interlaced, grey, or a big-endian machine) goes through
 * pngjs.
 */
// Only PNGs off Chromium's fast path need pngjs: loaded then.
const pngjs = optionalPackage<typeof import('pngjs').default>('pngjs');

export interface RgbaImage {
  width: number;
  height: number;
  /** width * height * 4 bytes, RGBA. */
  data: Buffer;
}

/**
 * An inflated fast-path PNG: its scanlines, each a filter byte and `stride`
 * bytes, left as they are. Rows are unfiltered into `rgba` on demand (`done`
 * marks which), so a comparison can leave the identical rest of an image
 * untouched.
 */
export interface PngRows {
  width: number;
  height: number;
  /** Bytes per pixel: 3 (RGB) or 4 (RGBA). */
  bpp: 3 | 4;
  stride: number;
  /** The filtered scanlines (never changed). */
  raw: Buffer;
  /** The same bytes and at least one more (unfilterInto reads whole words). */
  view: DataView;
  /** width * height * 4 bytes: the unfiltered rows as RGBA (the others hold garbage). */
  rgba: Buffer;
  /** The same memory as 32-bit words, one per pixel. */
  words: Uint32Array;
  /** Per row: 0 still filtered, 1 unfiltered. */
  done: Uint8Array;
}

/** Pixels read as 32-bit words have R in the low byte (what the fast paths assume). */
export const LITTLE_ENDIAN = endianness() === 'LE';
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

/**
 * A diff image's PNG. One row filter (Sub) and zlib level 1: pngjs's default
 * (every filter tried on every row, level 9) took 78 ms for a 1000x600 diff,
 * this 9 ms, for a file about as large (81 against 80 KB).
 */
export function encodePng(img: RgbaImage): Buffer {
  return pngjs().PNG.sync.write({ width: img.width, height: img.height, data: img.data }, { filterType: 1, deflateLevel: 1, deflateStrategy: 0 });
}

/**
 * Memory a comparison reuses: writing to freshly allocated megabytes costs a
 * page fault per 4 KB, which measured more than the inflate itself (a 2.4 MB
 * buffer filled fresh 11 ms, reused 0.04 ms, on the loaded 2-core machine).
 * Slot 2k holds side k's inflated scanlines, 2k+1 its RGBA, 4+k its joined
 * IDAT data. Only buffers up to SCRATCH_MAX bytes are kept (a 1000x600
 * screenshot needs 2.4 MB).
 */
const SCRATCH_MAX = 8 << 20;
const scratch: Buffer[] = [];

function scratchBuffer(slot: number, size: number): Buffer {
  if (size > SCRATCH_MAX) return Buffer.allocUnsafeSlow(size);
  let b = scratch[slot];
  if (!b || b.length < size) scratch[slot] = b = Buffer.allocUnsafeSlow(size);
  return b;
}

/**
 * zlib inflate of a whole stream; into `out` (at least `size` bytes) when given and Node's zlib still works as it does in Node 20-24.
 * (The compare benchmark's floor inflates with it too: the least a decoder on Node's zlib pays.)
 */
export function inflateAll(data: Buffer, size: number, out: Buffer | null): Buffer {
  const chunkSize = Math.max(64, size);
  if (out) {
    // inflateSync's own loop (ZlibBase._processChunk), writing into the
    // reused buffer set as its output buffer instead of a fresh one; should
    // Node ignore it, the result is the same, in fresh memory.
    // Made with the smallest chunk size, so it allocates no output buffer of its own.
    const inflate = new Inflate({ chunkSize: 64 }) as unknown as { _outBuffer?: Buffer; _chunkSize?: number; _processChunk?: (chunk: Buffer, flush: number) => Buffer };
    if (typeof inflate._processChunk === 'function' && inflate._outBuffer instanceof Buffer && inflate._chunkSize === 64) {
      inflate._outBuffer = out;
      inflate._chunkSize = chunkSize;
      return inflate._processChunk(data, zlibConstants.Z_FINISH);
    }
  }
  return inflateSync(data, { chunkSize });
}

/** The IDAT chunks' data as one buffer (Chromium writes 8 KB chunks); for a side, in its reused memory. */
function joined(chunks: Buffer[], side?: 0 | 1): Buffer {
  if (chunks.length === 1) return chunks[0];
  let total = 0;
  for (const c of chunks) total += c.length;
  if (side === undefined) return Buffer.concat(chunks, total);
  const into = scratchBuffer(4 + side, total);
  let at = 0;
  for (const c of chunks) at += c.copy(into, at);
  return into.subarray(0, total);
}

/** The data of a PNG's IDAT chunks, in order (views into the file). */
export function idatChunks(png: Buffer): Buffer[] {
  const idat: Buffer[] = [];
  for (let off = 8; off + 8 <= png.length; ) {
    const len = png.readUInt32BE(off);
    const type = png.toString('latin1', off + 4, off + 8);
    if (type === 'IDAT') idat.push(png.subarray(off + 8, off + 8 + len));
    if (type === 'IEND') break;
    off += 12 + len;
  }
  return idat;
}

/** An 8-bit RGB/RGBA non-interlaced PNG's size and pixel bytes (the fast path's kind); null for any other kind. */
function fastKind(png: Buffer): { width: number; height: number; bpp: 3 | 4; size: number } | null {
  const { width, height } = pngSize(png);
  const bitDepth = png[24];
  const colorType = png[25];
  const interlace = png[28];
  if (!(bitDepth === 8 && (colorType === 2 || colorType === 6) && interlace === 0) || !LITTLE_ENDIAN) return null;
  const bpp = colorType === 6 ? 4 : 3;
  return { width, height, bpp, size: (width * bpp + 1) * height };
}

/** zlib's error as the PNG's. */
function decoding<T>(inflate: () => T): T {
  try {
    return inflate();
  } catch (err) {
    throw new PngError(`cannot decode PNG: ${(err as Error).message}`);
  }
}

/**
 * The inflated scanlines of an 8-bit RGB/RGBA non-interlaced PNG; null for any
 * other kind (use decodePng). With a `side` (0 or 1) the result lives in memory
 * that the next inflatePng of that side reuses: for a comparison that keeps
 * nothing once it returns.
 */
export function inflatePng(png: Buffer, side?: 0 | 1): PngRows | null {
  const kind = fastKind(png);
  if (!kind) return null;
  // One output buffer a little larger than the image data: zlib never has to
  // grow it, and Node returns it without concatenating 16 KB pieces.
  const out = side === undefined ? null : scratchBuffer(2 * side, kind.size + 64);
  return rowsOf(kind, decoding(() => inflateAll(joined(idatChunks(png), side), kind.size + 64, out)), side);
}

/**
 * Both PNGs of a comparison inflated as inflatePng(expected, 0) and
 * inflatePng(actual, 1) do, the compressed bytes they start with inflated once
 * (pixel/inflate-pair.ts); `sameRows`: how many rows at the top are known to
 * be byte for byte the same in both. Null unless both are of the fast path's
 * kind, with the same size and pixel bytes.
 */
export function inflatePngPair(expected: Buffer, actual: Buffer): { a: PngRows; b: PngRows; sameRows: number } | null {
  const ka = fastKind(expected);
  const kb = ka && fastKind(actual);
  if (!ka || !kb || ka.bpp !== kb.bpp || ka.width !== kb.width || ka.height !== kb.height) return null;
  const out = (side: 0 | 1) => scratchBuffer(2 * side, ka.size + 64).subarray(0, ka.size + 64);
  const pair = decoding(() => inflatePair(joined(idatChunks(expected), 0), joined(idatChunks(actual), 1), out(0), out(1)));
  if (!pair) return { a: inflatePng(expected, 0)!, b: inflatePng(actual, 1)!, sameRows: 0 };
  return { a: rowsOf(ka, pair.a, 0), b: rowsOf(kb, pair.b, 1), sameRows: Math.floor(pair.shared / (ka.width * ka.bpp + 1)) };
}

/** PngRows over inflated scanlines `raw`; its RGBA in the side's reused memory (fresh memory without a side). */
function rowsOf({ width, height, bpp, size }: { width: number; height: number; bpp: 3 | 4; size: number }, raw: Buffer, side?: 0 | 1): PngRows {
  if (raw.length < size) throw new PngError('cannot decode PNG: image data is truncated');
  // Its own memory (never a pool slice: offset 0), so it can be viewed as 32-bit words.
  const rgba = side === undefined ? Buffer.allocUnsafeSlow(width * height * 4) : scratchBuffer(2 * side + 1, width * height * 4).subarray(0, width * height * 4);
  const words = new Uint32Array(rgba.buffer, rgba.byteOffset, width * height);
  // zlib's output buffer is 64 bytes longer than the image data (see above); should it not be, a copy is.
  if (raw.buffer.byteLength - raw.byteOffset < size + 4) raw = Buffer.concat([raw.subarray(0, size), Buffer.alloc(4)]);
  const view = new DataView(raw.buffer, raw.byteOffset, size + 4);
  return { width, height, bpp, stride: width * bpp, raw: raw.subarray(0, size), view, rgba, words, done: new Uint8Array(height) };
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

/** Rows [top, bottom) as RGBA (unfiltering what is needed): a view of the image's memory, no copy. */
export function toRgba(img: PngRows, top: number, bottom: number): RgbaImage {
  for (let y = top; y < bottom; y++) unfilterRows(img, y);
  const rowBytes = img.width * 4;
  return { width: img.width, height: bottom - top, data: img.rgba.subarray(top * rowBytes, bottom * rowBytes) };
}

/**
 * The rows whose pixels differ between two images of the same size and kind,
 * in order, unfiltering as few rows as it can: a row whose filtered bytes are
 * equal in both images holds the same pixels when the row above does (or when
 * its filter does not look up), so such rows are passed over without
 * reversing their filters. The first `sameRows` rows are known to be the same
 * in both (inflatePngPair) and are not looked at.
 */
export function differingRows(a: PngRows, b: PngRows, sameRows = 0): number[] {
  if (a.width !== b.width || a.height !== b.height || a.bpp !== b.bpp) throw new Error('differingRows: images of different size or kind');
  const line = a.stride + 1;
  const rowBytes = a.width * 4;
  const ra = a.raw;
  const rb = b.raw;
  const rows: number[] = [];
  let aboveEqual = true; // the row above holds the same pixels in both (true above the first row)
  for (let y = sameRows; y < a.height; y++) {
    const o = y * line;
    if ((aboveEqual || ra[o] <= 1) && ra.compare(rb, o, o + line, o, o + line) === 0) {
      aboveEqual = true;
      continue;
    }
    unfilterRows(a, y);
    unfilterRows(b, y);
    const q = y * rowBytes;
    aboveEqual = a.rgba.compare(b.rgba, q, q + rowBytes, q, q + rowBytes) === 0;
    if (!aboveEqual) rows.push(y);
  }
  return rows;
}

/** Zero bytes to compare scanlines with (grown as needed). */
let zeros = Buffer.alloc(0);

/** Whether raw[from, from + n) is all zero (one memcmp). */
function allZero(raw: Uint8Array, from: number, n: number): boolean {
  if (zeros.length < n) zeros = Buffer.alloc(n);
  return zeros.compare(raw, from, from + n, 0, n) === 0;
}

/** Reverses PNG's filter on row y into the image's RGBA words; the row above is already unfiltered. */
function unfilterRow(img: PngRows, y: number): void {
  const { width, words, raw, stride } = img;
  const s = y * (stride + 1);
  const filter = raw[s];
  // A scanline of zeros (a blank line under a blank line, common in a
  // terminal screenshot) is a copy of the row above when its filter is Up or
  // Paeth, and a row of zero pixels when it is None or Sub (or it is the
  // first row): copied or filled in one native call instead of pixel by pixel.
  const p = y * width;
  if (filter !== 3 && filter <= 4 && allZero(raw, s + 1, stride)) {
    if (y > 0 && (filter === 2 || filter === 4)) {
      words.copyWithin(p, p - width, p);
    } else {
      words.fill(img.bpp === 3 ? 0xff000000 : 0, p, p + width);
    }
    img.done[y] = 1;
    return;
  }
  // The first row's filters see zeros above it.
  const [up, u] = y > 0 ? [words, p - width] : [new Uint32Array(width), 0];
  if (!unfilterInto(img.view, s, img.bpp, width, words, p, up, u)) throw new PngError(`cannot decode PNG: unknown row filter ${filter}`);
  img.done[y] = 1;
}
