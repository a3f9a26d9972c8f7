/**
 * Text as Unicode code points, the form xterm's parser reads: what
 * `Buffer.from(text, 'utf8')` fed to xterm would give, lone surrogates
 * included (both become U+FFFD). A cast's output that codepointsOfJsonString
 * leaves alone is decoded this way, one event's string at a time.
 */
export function codepointsOf(text: string): Uint32Array {
  const out = new Uint32Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = c <= 0xdbff && i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
      } else {
        c = 0xfffd;
      }
    }
    out[n++] = c;
  }
  return n === out.length ? out : out.subarray(0, n);
}

/** Code points back to text (in slices: String.fromCodePoint takes its arguments on the stack). */
export function textOf(codepoints: Uint32Array): string {
  let text = '';
  for (let i = 0; i < codepoints.length; i += 8192) text += String.fromCodePoint(...codepoints.subarray(i, i + 8192));
  return text;
}

/** What each byte after a backslash stands for in a JSON string (-1: not a short escape; `u` is handled apart). */
const SHORT_ESCAPES = new Int32Array(128).fill(-1);
for (const [byte, codepoint] of [['"', 0x22], ['\\', 0x5c], ['/', 0x2f], ['b', 0x08], ['f', 0x0c], ['n', 0x0a], ['r', 0x0d], ['t', 0x09]] as const) {
  SHORT_ESCAPES[byte.charCodeAt(0)] = codepoint;
}

function hexDigit(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  const lower = b | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -16; // any bad digit makes the sum negative
}

/** The four hex digits of a `\u` escape at `at` (the backslash), or a negative number. */
function unicodeEscape(bytes: Uint8Array, at: number, end: number): number {
  if (at + 6 > end) return -1;
  return (hexDigit(bytes[at + 2]) << 12) | (hexDigit(bytes[at + 3]) << 8) | (hexDigit(bytes[at + 4]) << 4) | hexDigit(bytes[at + 5]);
}

/**
 * The code points of a JSON string straight from its UTF-8 bytes (the body
 * between the quotes, `bytes[start..end)`), written into `into` from `at`
 * (it needs room for `end - start`): what `codepointsOf(JSON.parse(…))` gives,
 * without making the string. -1 when the body holds anything JSON.parse must
 * judge or that only a string would decode (a raw control character, a bad
 * escape, bytes that are not UTF-8, an unpaired surrogate escape): the caller
 * then takes the ordinary way, which gives the same code points or the error.
 */
export function codepointsOfJsonString(bytes: Uint8Array, start: number, end: number, into: Uint32Array, at: number): number {
  let n = at;
  let i = start;
  while (i < end) {
    let c = bytes[i];
    // The common case first: printable ASCII other than the quote and the backslash.
    while (c > 0x22 && c < 0x7f && c !== 0x5c && i < end) {
      into[n++] = c;
      c = bytes[++i];
    }
    if (i >= end) break;
    if (c === 0x20 || c === 0x21 || c === 0x7f) {
      into[n++] = c;
      i++;
    } else if (c === 0x5c) {
      const e = i + 1 < end ? bytes[i + 1] : 0;
      if (e === 0x75) {
        let cp = unicodeEscape(bytes, i, end);
        if (cp < 0 || (cp >= 0xdc00 && cp <= 0xdfff)) return -1;
        i += 6;
        if (cp >= 0xd800 && cp <= 0xdbff) {
          const low = bytes[i] === 0x5c && bytes[i + 1] === 0x75 ? unicodeEscape(bytes, i, end) : -1;
          if (low < 0xdc00 || low > 0xdfff) return -1;
          cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          i += 6;
        }
        into[n++] = cp;
      } else {
        const cp = e < 0x80 ? SHORT_ESCAPES[e] : -1;
        if (cp < 0) return -1;
        into[n++] = cp;
        i += 2;
      }
    } else if (c < 0x80) {
      return -1; // a raw control character or the closing quote inside the body: JSON.parse decides
    } else {
      // UTF-8, well formed and shortest form only (anything else becomes U+FFFD through a string).
      const need = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
      if (c < 0xc2 || c > 0xf4 || i + need >= end) return -1;
      let cp = c & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
      for (let k = 1; k <= need; k++) {
        const b = bytes[i + k];
        if ((b & 0xc0) !== 0x80) return -1;
        cp = (cp << 6) | (b & 0x3f);
      }
      if ((need === 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (need === 3 && (cp < 0x10000 || cp > 0x10ffff))) return -1;
      into[n++] = cp;
      i += need + 1;
    }
  }
  return n - at;
}
