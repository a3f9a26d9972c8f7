/**
 * PNG's row filters reversed for 8-bit RGB and RGBA rows, straight into RGBA
 * pixels held as 32-bit little-endian words (R in the low byte), one word read
 * from the row above and one stored per pixel. Bytes are added and averaged
 * four at a time inside a word (no carry crosses a byte), so None, Sub, Up and
 * Avg need no per-channel work; Paeth does only where its predictor differs
 * by channel (flat areas and straight edges, most of a terminal, take the
 * left or the upper pixel whole). RGB rows get alpha 255. In RGB Up and Paeth
 * rows, a run of zero bytes (the row above repeated: most of a terminal's
 * rows, around a few glyphs) is copied from the row above in one native call:
 * both images of a 1000x600 Chromium screenshot pair unfiltered in 2.0 against
 * 2.9 ms (fastest of 3 runs of 300 each, 2026-12-06).
 *
 * One small loop per filter and pixel size, with the pixel size and alpha as
 * constants: one loop per filter taking them as variables unfiltered a
 * 1000x600 screenshot about 15% slower (2.05 against 1.75 ms).
 */

/** Byte-wise x + y (mod 256 in each byte). */
function add(x: number, y: number): number {
  return ((x & 0x7f7f7f7f) + (y & 0x7f7f7f7f)) ^ ((x ^ y) & 0x80808080);
}

/** Byte-wise floor((x + y) / 2). */
function avg(x: number, y: number): number {
  return (x & y) + (((x ^ y) & 0xfefefefe) >>> 1);
}

/** Paeth's predictor for one byte. */
function paeth(a: number, b: number, c: number): number {
  let pa = b - c;
  if (pa < 0) pa = -pa;
  let pb = a - c;
  if (pb < 0) pb = -pb;
  let pc = a + b - c - c;
  if (pc < 0) pc = -pc;
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Paeth's predictor for the first three bytes of a word, byte by byte. */
function paeth3(a: number, b: number, c: number): number {
  return (
    paeth(a & 0xff, b & 0xff, c & 0xff) |
    (paeth((a >>> 8) & 0xff, (b >>> 8) & 0xff, (c >>> 8) & 0xff) << 8) |
    (paeth((a >>> 16) & 0xff, (b >>> 16) & 0xff, (c >>> 16) & 0xff) << 16)
  );
}

/** Paeth's predictor for all four bytes of a word. */
function paeth4(a: number, b: number, c: number): number {
  return paeth3(a, b, c) | (paeth(a >>> 24, b >>> 24, c >>> 24) << 24);
}

// Each reads pixel bytes from `i`, writes out[p .. end); the row above is up[u ..].
// RGB: four pixels are read as three little-endian words (twelve bytes; 1.7 against 2.6 ns a pixel for
// one load per pixel) and split with rgbAt; the last width % 4 pixels one load each, the fourth byte of
// each (the next pixel's) masked off. Alpha 255 is set.

/** Pixel k (0-3) of the four RGB pixels in words w0, w1, w2 (little-endian), alpha 0. */
function rgbAt(k: number, w0: number, w1: number, w2: number): number {
  return k === 0 ? w0 & 0xffffff : k === 1 ? (w0 >>> 24) | ((w1 & 0xffff) << 8) : k === 2 ? (w1 >>> 16) | ((w2 & 0xff) << 16) : w2 >>> 8;
}

function none3(raw: DataView, i: number, out: Uint32Array, p: number, end: number): void {
  for (; p + 4 <= end; p += 4, i += 12) {
    const w0 = raw.getInt32(i, true);
    const w1 = raw.getInt32(i + 4, true);
    const w2 = raw.getInt32(i + 8, true);
    out[p] = rgbAt(0, w0, w1, w2) | 0xff000000;
    out[p + 1] = rgbAt(1, w0, w1, w2) | 0xff000000;
    out[p + 2] = rgbAt(2, w0, w1, w2) | 0xff000000;
    out[p + 3] = rgbAt(3, w0, w1, w2) | 0xff000000;
  }
  for (; p < end; p++, i += 3) out[p] = raw.getInt32(i, true) | 0xff000000;
}
function none4(raw: DataView, i: number, out: Uint32Array, p: number, end: number): void {
  for (; p < end; p++, i += 4) out[p] = raw.getInt32(i, true);
}
function sub3(raw: DataView, i: number, out: Uint32Array, p: number, end: number): void {
  let left = 0;
  for (; p + 4 <= end; p += 4, i += 12) {
    const w0 = raw.getInt32(i, true);
    const w1 = raw.getInt32(i + 4, true);
    const w2 = raw.getInt32(i + 8, true);
    out[p] = left = add(rgbAt(0, w0, w1, w2), left) | 0xff000000;
    out[p + 1] = left = add(rgbAt(1, w0, w1, w2), left) | 0xff000000;
    out[p + 2] = left = add(rgbAt(2, w0, w1, w2), left) | 0xff000000;
    out[p + 3] = left = add(rgbAt(3, w0, w1, w2), left) | 0xff000000;
  }
  for (; p < end; p++, i += 3) {
    left = add(raw.getInt32(i, true) & 0xffffff, left) | 0xff000000;
    out[p] = left;
  }
}
function sub4(raw: DataView, i: number, out: Uint32Array, p: number, end: number): void {
  let left = 0;
  for (; p < end; p++, i += 4) {
    left = add(raw.getInt32(i, true), left);
    out[p] = left;
  }
}
/**
 * Where a run of zero RGB bytes starting at pixel p (byte i) ends, in whole
 * groups of four pixels, at most `end`: in an Up or Paeth row, such a run
 * repeats the row above (most of a terminal screenshot's rows are such runs
 * around a few glyphs).
 */
function zeroRunEnd(raw: DataView, i: number, p: number, end: number): number {
  for (; p + 4 <= end; p += 4, i += 12) if ((raw.getInt32(i, true) | raw.getInt32(i + 4, true) | raw.getInt32(i + 8, true)) !== 0) break;
  return p;
}

/** out[p, q) = the row above's pixels up[u, ...), alpha 255: one native copy when the row above is in `out` (its alpha is 255 already). */
function copyAbove(out: Uint32Array, p: number, q: number, up: Uint32Array, u: number): void {
  if (up === out && q - p >= 16) {
    out.copyWithin(p, u, u + (q - p));
    return;
  }
  for (; p < q; p++, u++) out[p] = up[u] | 0xff000000;
}

function up3(raw: DataView, i: number, out: Uint32Array, p: number, end: number, up: Uint32Array, u: number): void {
  for (; p + 4 <= end; p += 4, i += 12, u += 4) {
    const w0 = raw.getInt32(i, true);
    const w1 = raw.getInt32(i + 4, true);
    const w2 = raw.getInt32(i + 8, true);
    if ((w0 | w1 | w2) === 0) {
      const q = zeroRunEnd(raw, i + 12, p + 4, end);
      copyAbove(out, p, q, up, u);
      i += (q - p) * 3 - 12;
      u += q - p - 4;
      p = q - 4;
      continue;
    }
    out[p] = add(rgbAt(0, w0, w1, w2), up[u]) | 0xff000000;
    out[p + 1] = add(rgbAt(1, w0, w1, w2), up[u + 1]) | 0xff000000;
    out[p + 2] = add(rgbAt(2, w0, w1, w2), up[u + 2]) | 0xff000000;
    out[p + 3] = add(rgbAt(3, w0, w1, w2), up[u + 3]) | 0xff000000;
  }
  for (; p < end; p++, i += 3, u++) out[p] = add(raw.getInt32(i, true) & 0xffffff, up[u]) | 0xff000000;
}
function up4(raw: DataView, i: number, out: Uint32Array, p: number, end: number, up: Uint32Array, u: number): void {
  for (; p < end; p++, i += 4, u++) out[p] = add(raw.getInt32(i, true), up[u]);
}
function avg3(raw: DataView, i: number, out: Uint32Array, p: number, end: number, up: Uint32Array, u: number): void {
  let left = 0;
  for (; p + 4 <= end; p += 4, i += 12, u += 4) {
    const w0 = raw.getInt32(i, true);
    const w1 = raw.getInt32(i + 4, true);
    const w2 = raw.getInt32(i + 8, true);
    out[p] = left = add(rgbAt(0, w0, w1, w2), avg(left, up[u])) | 0xff000000;
    out[p + 1] = left = add(rgbAt(1, w0, w1, w2), avg(left, up[u + 1])) | 0xff000000;
    out[p + 2] = left = add(rgbAt(2, w0, w1, w2), avg(left, up[u + 2])) | 0xff000000;
    out[p + 3] = left = add(rgbAt(3, w0, w1, w2), avg(left, up[u + 3])) | 0xff000000;
  }
  for (; p < end; p++, i += 3, u++) {
    left = add(raw.getInt32(i, true) & 0xffffff, avg(left, up[u])) | 0xff000000;
    out[p] = left;
  }
}
function avg4(raw: DataView, i: number, out: Uint32Array, p: number, end: number, up: Uint32Array, u: number): void {
  let left = 0;
  for (; p < end; p++, i += 4, u++) {
    left = add(raw.getInt32(i, true), avg(left, up[u]));
    out[p] = left;
  }
}
// Only the bytes of a pixel count: RGB words are compared with alpha forced alike.
// Where left = upper-left every byte predicts the byte above; where above = upper-left, the byte to the left.
// RGB Paeth reads three words per four pixels, as the others do, to find zero runs.
function paethRow3(raw: DataView, i: number, out: Uint32Array, p: number, end: number, up: Uint32Array, u: number): void {
  let left = 0;
  let upLeft = 0;
  for (; p + 4 <= end; p += 4, i += 12, u += 4) {
    const w0 = raw.getInt32(i, true);
    const w1 = raw.getInt32(i + 4, true);
    const w2 = raw.getInt32(i + 8, true);
    if ((w0 | w1 | w2) === 0 && left === upLeft) {
      // Zero bytes where left = upper-left: each pixel is the one above, and so left = upper-left
      // again for the next, to the end of the zero run.
      const q = zeroRunEnd(raw, i + 12, p + 4, end);
      copyAbove(out, p, q, up, u);
      left = upLeft = out[q - 1] | 0;
      i += (q - p) * 3 - 12;
      u += q - p - 4;
      p = q - 4;
      continue;
    }
    for (let k = 0; k < 4; k++) {
      const above = up[u + k] | 0xff000000;
      const pred = left === upLeft ? above : above === upLeft ? left : paeth3(left, above, upLeft);
      left = add(rgbAt(k, w0, w1, w2), pred) | 0xff000000;
      out[p + k] = left;
      upLeft = above;
    }
  }
  for (; p < end; p++, i += 3, u++) {
    const above = up[u] | 0xff000000;
    const pred = left === upLeft ? above : above === upLeft ? left : paeth3(left, above, upLeft);
    left = add(raw.getInt32(i, true) & 0xffffff, pred) | 0xff000000;
    out[p] = left;
    upLeft = above;
  }
}
function paethRow4(raw: DataView, i: number, out: Uint32Array, p: number, end: number, up: Uint32Array, u: number): void {
  let left = 0;
  let upLeft = 0;
  for (; p < end; p++, i += 4, u++) {
    const above = up[u] | 0; // signed, as `left` is, so that equal pixels compare equal
    const pred = left === upLeft ? above : above === upLeft ? left : paeth4(left, above, upLeft);
    left = add(raw.getInt32(i, true), pred);
    out[p] = left;
    upLeft = above;
  }
}

/**
 * Unfilters one scanline: byte `s` of `raw` is its filter byte, the `width`
 * pixels of `bpp` bytes follow; writes `out[p .. p + width)`. `up` is the row
 * above as unfiltered words starting at `u` (all zero for the first row).
 * Each pixel is read as one little-endian 32-bit load (an RGB pixel's fourth
 * byte, the next one's, is masked off), so `raw` must have a byte to spare
 * after the last row. Returns false for an unknown filter.
 */
export function unfilterInto(raw: DataView, s: number, bpp: 3 | 4, width: number, out: Uint32Array, p: number, up: Uint32Array, u: number): boolean {
  const i = s + 1;
  const end = p + width;
  const rgb = bpp === 3;
  switch (raw.getUint8(s)) {
    case 0:
      if (rgb) none3(raw, i, out, p, end);
      else none4(raw, i, out, p, end);
      return true;
    case 1:
      if (rgb) sub3(raw, i, out, p, end);
      else sub4(raw, i, out, p, end);
      return true;
    case 2:
      if (rgb) up3(raw, i, out, p, end, up, u);
      else up4(raw, i, out, p, end, up, u);
      return true;
    case 3:
      if (rgb) avg3(raw, i, out, p, end, up, u);
      else avg4(raw, i, out, p, end, up, u);
      return true;
    case 4:
      if (rgb) paethRow3(raw, i, out, p, end, up, u);
      else paethRow4(raw, i, out, p, end, up, u);
      return true;
    default:
      return false;
  }
}
