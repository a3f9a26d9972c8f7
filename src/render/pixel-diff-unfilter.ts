/**
 * PNG's row filters reversed for 8-bit RGB and RGBA rows, straight into RGBA
 * pixels held as 32-bit little-endian words (R in the low byte), one word read
 * from the row above and one stored per pixel. Bytes are added and averaged
 * four at a time inside a word (no carry crosses a byte), so None, Sub, Up and
 * Avg need no per-channel work; Paeth does only where its predictor differs
 * by channel (flat areas and straight edges, most of a terminal, take the
 * left or the upper pixel whole). RGB rows get alpha 255.
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

/** Paeth's predictor for every byte of a word (the first three, or all four), byte by byte. */
function paethWord(a: number, b: number, c: number, bpp: number): number {
  const p =
    paeth(a & 0xff, b & 0xff, c & 0xff) |
    (paeth((a >>> 8) & 0xff, (b >>> 8) & 0xff, (c >>> 8) & 0xff) << 8) |
    (paeth((a >>> 16) & 0xff, (b >>> 16) & 0xff, (c >>> 16) & 0xff) << 16);
  return bpp === 4 ? p | (paeth(a >>> 24, b >>> 24, c >>> 24) << 24) : p;
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
  const filter = raw.getUint8(s);
  const alpha = bpp === 3 ? 0xff000000 | 0 : 0;
  const mask = bpp === 3 ? 0xffffff : -1;
  let i = s + 1;
  const end = p + width;
  switch (filter) {
    case 0:
      for (; p < end; p++, i += bpp) out[p] = (raw.getInt32(i, true) & mask) | alpha;
      return true;
    case 1: {
      let left = 0;
      for (; p < end; p++, i += bpp) {
        left = add(raw.getInt32(i, true) & mask, left) | alpha;
        out[p] = left;
      }
      return true;
    }
    case 2:
      for (; p < end; p++, i += bpp, u++) out[p] = add(raw.getInt32(i, true) & mask, up[u]) | alpha;
      return true;
    case 3: {
      let left = 0;
      for (; p < end; p++, i += bpp, u++) {
        left = add(raw.getInt32(i, true) & mask, avg(left, up[u])) | alpha;
        out[p] = left;
      }
      return true;
    }
    case 4: {
      // Only the bytes of a pixel count: RGB words are compared with alpha forced alike.
      let left = 0;
      let upLeft = 0;
      for (; p < end; p++, i += bpp, u++) {
        const above = up[u] | alpha;
        const f = raw.getInt32(i, true) & mask;
        // a = c: every byte predicts the byte above; b = c: the byte to the left.
        const pred = left === upLeft ? above : above === upLeft ? left : paethWord(left, above, upLeft, bpp);
        left = add(f, pred) | alpha;
        out[p] = left;
        upLeft = above;
      }
      return true;
    }
    default:
      return false;
  }
}
