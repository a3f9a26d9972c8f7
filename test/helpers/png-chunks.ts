/** PNG chunks written by hand, for files pngjs cannot write. */

export function crc32(bytes: Buffer): number {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** One chunk: length, type, data, CRC. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(body.length + 8);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), body.length + 4);
  return out;
}

/** `png` with its image data replaced by `idat` (a zlib stream), written as IDAT chunks of at most `chunkSize` bytes. */
export function withIdat(png: Buffer, idat: Buffer, chunkSize = idat.length): Buffer {
  const parts: Buffer[] = [png.subarray(0, 8)];
  let placed = false;
  for (let off = 8; off + 8 <= png.length; ) {
    const len = png.readUInt32BE(off);
    const type = png.toString('latin1', off + 4, off + 8);
    if (type !== 'IDAT') {
      parts.push(png.subarray(off, off + 12 + len));
    } else if (!placed) {
      for (let at = 0; at < idat.length; at += chunkSize) parts.push(pngChunk('IDAT', idat.subarray(at, at + chunkSize)));
      placed = true;
    }
    if (type === 'IEND') break;
    off += 12 + len;
  }
  return Buffer.concat(parts);
}
