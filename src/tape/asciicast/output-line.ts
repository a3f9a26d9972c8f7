/**
 * An output event line read straight from its bytes into code points. Almost
 * every line of a large cast is `[<time>, "o", "<text>"]`; for those, decoding
 * the line to a string, JSON.parse and decoding the string again to code
 * points (the form xterm's parser reads) were three passes, and most of what
 * the reader thread spent. This is one pass. Anything else (another event
 * code, bytes that are not UTF-8, a control character in the string, extra
 * array elements) is left to the general reader: undefined means "parse it
 * as JSON", so what this accepts is a subset of valid JSON, and what it gives
 * equals codepointsOf(JSON.parse(line)[2]) (test/cast/output-line.test.ts
 * holds the two alike on random and hostile lines).
 */
export interface OutputLine {
  /** The event's time field, as JSON.parse reads it (the caller checks its range). */
  stamp: number;
  codepoints: Uint32Array;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const REPLACEMENT = 0xfffd;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isContinuation = (c: number): boolean => (c & 0xc0) === 0x80;

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/** The code unit of a `\uXXXX` escape starting at `at` (the backslash), or -1. */
function unicodeEscape(b: Uint8Array, at: number, end: number): number {
  if (at + 6 > end || b[at] !== BACKSLASH || b[at + 1] !== 0x75) return -1;
  let unit = 0;
  for (let j = at + 2; j < at + 6; j++) {
    const h = hexValue(b[j]);
    if (h < 0) return -1;
    unit = (unit << 4) | h;
  }
  return unit;
}

/** The code unit a backslash escape at `at` stands for (`\\uXXXX` included), or -1 for one JSON does not have. */
function escapedUnit(b: Uint8Array, at: number, end: number): number {
  switch (b[at + 1]) {
    case QUOTE:
    case BACKSLASH:
    case 0x2f: // /
      return b[at + 1];
    case 0x6e: // n
      return 0x0a;
    case 0x72: // r
      return 0x0d;
    case 0x74: // t
      return 0x09;
    case 0x62: // b
      return 0x08;
    case 0x66: // f
      return 0x0c;
    case 0x75: // u
      return unicodeEscape(b, at, end);
    default:
      return -1;
  }
}

/** The position after JSON's number grammar from `at`, or -1. */
function numberEnd(b: Uint8Array, at: number, end: number): number {
  let i = at;
  if (b[i] === 0x2d) i++;
  if (b[i] === 0x30) i++;
  else if (i < end && b[i] >= 0x31 && b[i] <= 0x39) while (i < end && isDigit(b[i])) i++;
  else return -1;
  if (i < end && b[i] === 0x2e) {
    i++;
    if (!(i < end && isDigit(b[i]))) return -1;
    while (i < end && isDigit(b[i])) i++;
  }
  if (i < end && (b[i] === 0x65 || b[i] === 0x45)) {
    i++;
    if (i < end && (b[i] === 0x2b || b[i] === 0x2d)) i++;
    if (!(i < end && isDigit(b[i]))) return -1;
    while (i < end && isDigit(b[i])) i++;
  }
  return i;
}

/** `[<number>, "o", "<string>"]` with JSON whitespace anywhere between tokens; undefined for any other line. */
export function plainOutputLine(b: Buffer): OutputLine | undefined {
  const end = b.length;
  let i = 0;
  const skipSpace = () => {
    while (i < end && isSpace(b[i])) i++;
  };
  const expect = (c: number): boolean => {
    skipSpace();
    if (b[i] !== c) return false;
    i++;
    return true;
  };
  if (!expect(0x5b)) return undefined; // [
  skipSpace();
  const numberStart = i;
  i = numberEnd(b, i, end);
  if (i < 0) return undefined;
  const stamp = Number(b.toString('latin1', numberStart, i));
  if (!expect(0x2c) || !expect(QUOTE) || b[i] !== 0x6f || b[i + 1] !== QUOTE) return undefined; // , "o"
  i += 2;
  if (!expect(0x2c) || !expect(QUOTE)) return undefined;
  const out = new Uint32Array(end - i); // a code point takes at least a byte
  let n = 0;
  while (i < end) {
    let c = b[i];
    // The common case in a loop of its own: printable ASCII other than the quote and the backslash.
    while (c >= 0x20 && c < 0x7f && c !== QUOTE && c !== BACKSLASH) {
      out[n++] = c;
      if (++i === end) return undefined; // no closing quote
      c = b[i];
    }
    if (c === QUOTE) break;
    if (c === BACKSLASH) {
      const unit = escapedUnit(b, i, end);
      if (unit < 0) return undefined;
      i += b[i + 1] === 0x75 ? 6 : 2;
      if (unit >= 0xd800 && unit <= 0xdbff) {
        const low = unicodeEscape(b, i, end);
        if (low >= 0xdc00 && low <= 0xdfff) {
          out[n++] = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
          i += 6;
        } else out[n++] = REPLACEMENT; // a lone surrogate, as codepointsOf gives it
      } else out[n++] = unit >= 0xdc00 && unit <= 0xdfff ? REPLACEMENT : unit;
      continue;
    }
    if (c < 0x80) {
      if (c < 0x20) return undefined; // a raw control character is not JSON
      out[n++] = c; // DEL
      i++;
      continue;
    }
    // UTF-8, strictly (the general reader replaces what is not, as Buffer#toString does).
    const c1 = b[i + 1];
    if (c >= 0xc2 && c <= 0xdf) {
      if (!isContinuation(c1)) return undefined;
      out[n++] = ((c & 0x1f) << 6) | (c1 & 0x3f);
      i += 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      const c2 = b[i + 2];
      const low1 = c === 0xe0 ? 0xa0 : 0x80;
      const high1 = c === 0xed ? 0x9f : 0xbf;
      if (!(c1 >= low1 && c1 <= high1) || !isContinuation(c2)) return undefined;
      out[n++] = ((c & 0x0f) << 12) | ((c1 & 0x3f) << 6) | (c2 & 0x3f);
      i += 3;
    } else if (c >= 0xf0 && c <= 0xf4) {
      const c2 = b[i + 2];
      const c3 = b[i + 3];
      const low1 = c === 0xf0 ? 0x90 : 0x80;
      const high1 = c === 0xf4 ? 0x8f : 0xbf;
      if (!(c1 >= low1 && c1 <= high1) || !isContinuation(c2) || !isContinuation(c3)) return undefined;
      out[n++] = ((c & 0x07) << 18) | ((c1 & 0x3f) << 12) | ((c2 & 0x3f) << 6) | (c3 & 0x3f);
      i += 4;
    } else return undefined;
  }
  if (i >= end) return undefined; // no closing quote
  i++;
  if (!expect(0x5d)) return undefined; // ]
  skipSpace();
  if (i !== end) return undefined;
  return { stamp, codepoints: out.subarray(0, n) };
}
