import * as zlib from 'node:zlib';

/**
 * PNG writing for the raster renderer: 8-bit RGB, rows unfiltered, deflated
 * by node:zlib at level 1 (the rows of a terminal screen are mostly long runs
 * of one colour, which level 1 already packs well; higher levels cost several
 * times the time for a few percent). A `tEXt` chunk with the keyword
 * `tapedeck` carries the stamp: which renderer drew it, with which fonts, and
 * where the cells are.
 */
export interface PngStamp {
  renderer: string;
  version: number;
  fonts: Record<string, string | null>;
  rows: number;
  cols: number;
  cell: { width: number; height: number };
  padding: { x: number; y: number };
  [extra: string]: unknown;
}

export const STAMP_KEYWORD = 'tapedeck';
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let rowsScratch: Buffer | undefined;
/** Deflate's output buffer size: the last image's compressed size and some room (one buffer, not 256 KB a call). */
let outputHint = 64 * 1024;

/**
 * Memory per image: deflate's one output buffer, sized from the last image, and the PNG itself,
 * assembled in place. Every fresh buffer is memory V8 frees only at its next collection, which
 * a screenshot loop that allocates little JavaScript reaches late: the 256 KB output chunk and
 * three copies of the IDAT this made per image grew peak RSS by 24 MB over 1,000 images.
 */
export function encodeRgbaPng(width: number, height: number, rgba: Uint8Array, stamp: PngStamp): Buffer {
  const stride = width * 3 + 1;
  const size = stride * height;
  // Reused between screenshots: fresh megabytes cost a page fault per 4 KB.
  if (!rowsScratch || rowsScratch.length < size) rowsScratch = Buffer.allocUnsafeSlow(size);
  const raw = rowsScratch;
  let o = 0;
  let i = 0;
  for (let y = 0; y < height; y++) {
    raw[o++] = 0;
    for (let x = 0; x < width; x++) {
      raw[o] = rgba[i];
      raw[o + 1] = rgba[i + 1];
      raw[o + 2] = rgba[i + 2];
      o += 3;
      i += 4;
    }
  }
  const idat = zlib.deflateSync(raw.subarray(0, size), { level: 1, strategy: zlib.constants.Z_DEFAULT_STRATEGY, chunkSize: outputHint });
  outputHint = Math.min(16 << 20, Math.max(16 * 1024, idat.length + (idat.length >> 3) + 4096));
  const text = Buffer.from(`${STAMP_KEYWORD}\0${JSON.stringify(stamp)}`, 'latin1');
  const png = Buffer.allocUnsafe(SIGNATURE.length + 12 + 13 + 12 + text.length + 12 + idat.length + 12);
  SIGNATURE.copy(png, 0);
  let at = SIGNATURE.length;
  at = chunkAt(png, at, 'IHDR', 13, (body) => {
    body.writeUInt32BE(width, 0);
    body.writeUInt32BE(height, 4);
    body[8] = 8; // bit depth
    body[9] = 2; // RGB
    body.fill(0, 10, 13); // deflate, adaptive filters, no interlace
  });
  at = chunkAt(png, at, 'tEXt', text.length, (body) => text.copy(body, 0));
  at = chunkAt(png, at, 'IDAT', idat.length, (body) => idat.copy(body, 0));
  chunkAt(png, at, 'IEND', 0, () => {});
  return png;
}

/** Writes a chunk (length, type, body, CRC) at `at` in `out`; returns where the next one starts. */
function chunkAt(out: Buffer, at: number, type: string, length: number, body: (into: Buffer) => void): number {
  out.writeUInt32BE(length, at);
  out.write(type, at + 4, 'latin1');
  body(out.subarray(at + 8, at + 8 + length));
  out.writeUInt32BE(crc(out.subarray(at + 4, at + 8 + length)), at + 8 + length);
  return at + 12 + length;
}

/** The stamp of a PNG (null when it has none or it is not valid JSON). */
export function readPngStamp(png: Buffer): PngStamp | null {
  if (png.length < 8 || !png.subarray(0, 8).equals(SIGNATURE)) return null;
  let at = 8;
  while (at + 12 <= png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT' || type === 'IEND') return null;
    if (type === 'tEXt' && at + 8 + length <= png.length) {
      const body = png.toString('latin1', at + 8, at + 8 + length);
      const nul = body.indexOf('\0');
      if (nul > 0 && body.slice(0, nul) === STAMP_KEYWORD) {
        try {
          const stamp = JSON.parse(body.slice(nul + 1)) as PngStamp;
          return stamp && typeof stamp === 'object' ? stamp : null;
        } catch {
          return null;
        }
      }
    }
    at += 12 + length;
  }
  return null;
}

// zlib.crc32 arrived in Node 20.15 / 22.2; the table below serves older ones.
const nativeCrc = typeof (zlib as { crc32?: unknown }).crc32 === 'function' ? (zlib as unknown as { crc32(b: Buffer): number }).crc32 : null;
let table: Uint32Array | undefined;

function crc(buf: Buffer): number {
  if (nativeCrc) return nativeCrc(buf) >>> 0;
  table ??= Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = table[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
