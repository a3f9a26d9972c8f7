/**
 * A JSON string literal straight from UTF-8 bytes: the same bytes as
 * Buffer.from(JSON.stringify(bytes.toString('utf8'))), for bytes that are valid
 * UTF-8. Recording writes every output chunk this way: decoding it, escaping
 * the string and encoding it again cost about twice as much CPU (a
 * `seq 1 200000` escapes 400,000 line ends), and the strings were garbage.
 *
 * Valid UTF-8 holds no surrogates, so JSON.stringify escapes only what this
 * does: `"`, `\`, and the C0 controls (\b \f \n \r \t by name, others as
 * \u00xx in lower case). Every other byte, multi-byte sequences included, is
 * copied as it is.
 */

/** 0: copied; 1: \u00xx; else the letter after the backslash. */
const ESCAPE = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) ESCAPE[b] = 1;
ESCAPE[0x22] = 0x22; // "
ESCAPE[0x5c] = 0x5c; // \
ESCAPE[0x08] = 0x62; // b
ESCAPE[0x09] = 0x74; // t
ESCAPE[0x0a] = 0x6e; // n
ESCAPE[0x0c] = 0x66; // f
ESCAPE[0x0d] = 0x72; // r
const HEX = Buffer.from('0123456789abcdef', 'latin1');

/** The most bytes writeJsonStringBytes writes for `length` input bytes (all \u00xx, and the quotes). */
export function jsonStringMaxBytes(length: number): number {
  return 6 * length + 2;
}

/** Writes `bytes` (valid UTF-8) as a JSON string literal into `out` at `offset`; returns the offset after it. */
export function writeJsonStringBytes(out: Uint8Array, offset: number, bytes: Uint8Array): number {
  let o = offset;
  out[o++] = 0x22;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    const e = ESCAPE[b];
    if (e === 0) {
      out[o++] = b;
    } else if (e === 1) {
      out[o++] = 0x5c;
      out[o++] = 0x75;
      out[o++] = 0x30;
      out[o++] = 0x30;
      out[o++] = HEX[b >> 4];
      out[o++] = HEX[b & 15];
    } else {
      out[o++] = 0x5c;
      out[o++] = e;
    }
  }
  out[o++] = 0x22;
  return o;
}
