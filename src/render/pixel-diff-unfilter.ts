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

/** Paeth's predictor for every byte of a word, byte by byte. */
function paethWord(a: number, b: number, c: number, bpp: number): number {
  let p = 0;
  for (let k = 0; k < bpp * 8; k += 8) p |= paeth((a >>> k) & 0xff, (b >>> k) & 0xff, (c >>> k) & 0xff) << k;
  return p;
}

/**
 * Unfilters one scanline: `raw[s]` is its filter byte, the `width` pixels of
 * `bpp` bytes follow; writes `out[p .. p + width)`. `up` is the row above as
 * unfiltered words starting at `u` (all zero for the first row).
 * Returns false for an unknown filter.
 */
export function unfilterInto(raw: Uint8Array, s: number, bpp: 3 | 4, width: number, out: Uint32Array, p: number, up: Uint32Array, u: number): boolean {
  const filter = raw[s];
  const alpha = bpp === 3 ? 0xff000000 : 0;
  let i = s + 1;
  const end = p + width;
  switch (filter) {
    case 0:
      for (; p < end; p++, i += bpp) out[p] = raw[i] | (raw[i + 1] << 8) | (raw[i + 2] << 16) | (bpp === 4 ? raw[i + 3] << 24 : alpha);
      return true;
    case 1: {
      let left = 0;
      for (; p < end; p++, i += bpp) {
        left = add(raw[i] | (raw[i + 1] << 8) | (raw[i + 2] << 16) | (bpp === 4 ? raw[i + 3] << 24 : 0), left) | alpha;
        out[p] = left;
      }
      return true;
    }
    case 2:
      for (; p < end; p++, i += bpp, u++) out[p] = add(raw[i] | (raw[i + 1] << 8) | (raw[i + 2] << 16) | (bpp === 4 ? raw[i + 3] << 24 : 0), up[u]) | alpha;
      return true;
    case 3: {
      let left = 0;
      for (; p < end; p++, i += bpp, u++) {
        left = add(raw[i] | (raw[i + 1] << 8) | (raw[i + 2] << 16) | (bpp === 4 ? raw[i + 3] << 24 : 0), avg(left, up[u])) | alpha;
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
        const f = raw[i] | (raw[i + 1] << 8) | (raw[i + 2] << 16) | (bpp === 4 ? raw[i + 3] << 24 : 0);
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
