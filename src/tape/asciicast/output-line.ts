import { codepointsOfJsonString } from '../../core/text/codepoints.js';
import type { CastEvent } from './events.js';

/**
 * An output event line decoded straight from its bytes. A large cast is
 * nearly all lines like `[0.25, "o", "…"]`; reading each as a string and
 * then through JSON.parse and back to code points cost the cast player's
 * reader thread about twice what one pass over the bytes does. Only lines
 * that are plainly well formed take this way; anything else (another event,
 * an odd number, a raw control character, bytes that are not UTF-8) is left
 * to the ordinary parser, which gives the same event or the error.
 */

/** JSON's number grammar, so the time read is what JSON.parse reads. */
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
/** Longer numbers are left to JSON.parse (a time never needs them). */
const LONGEST_NUMBER = 32;

function isJsonSpace(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a;
}

function skipSpace(bytes: Uint8Array, i: number): number {
  while (i < bytes.length && isJsonSpace(bytes[i])) i++;
  return i;
}

function isNumberByte(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || b === 0x2e || b === 0x2d || b === 0x2b || b === 0x65 || b === 0x45;
}

/** Where the string whose body starts at `start` ends (its closing quote), or -1. */
function closingQuote(bytes: Uint8Array, start: number): number {
  for (let q = bytes.indexOf(0x22, start); q !== -1; q = bytes.indexOf(0x22, q + 1)) {
    let backslashes = 0;
    while (q - 1 - backslashes >= start && bytes[q - 1 - backslashes] === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return q;
  }
  return -1;
}

/**
 * Decodes `[time, "o", "data"]` (JSON spacing allowed) with `0 <= time <=
 * maxTime`, writing data's code points into `into` from 0 (it needs room for
 * `bytes.length`). Undefined for any other line.
 */
export function decodeOutputLine(bytes: Uint8Array, into: Uint32Array, maxTime: number): { time: number; length: number } | undefined {
  let i = skipSpace(bytes, 0);
  if (bytes[i] !== 0x5b) return undefined; // [
  i = skipSpace(bytes, i + 1);
  const numberStart = i;
  while (i < bytes.length && isNumberByte(bytes[i])) i++;
  if (i === numberStart || i - numberStart > LONGEST_NUMBER) return undefined;
  const number = String.fromCharCode(...bytes.subarray(numberStart, i));
  if (!JSON_NUMBER.test(number)) return undefined;
  const time = Number(number);
  if (!(time >= 0 && time <= maxTime)) return undefined;
  i = skipSpace(bytes, i);
  if (bytes[i] !== 0x2c) return undefined; // ,
  i = skipSpace(bytes, i + 1);
  if (bytes[i] !== 0x22 || bytes[i + 1] !== 0x6f || bytes[i + 2] !== 0x22) return undefined; // "o"
  i = skipSpace(bytes, i + 3);
  if (bytes[i] !== 0x2c) return undefined;
  i = skipSpace(bytes, i + 1);
  if (bytes[i] !== 0x22) return undefined;
  const bodyStart = i + 1;
  const bodyEnd = closingQuote(bytes, bodyStart);
  if (bodyEnd === -1) return undefined;
  i = skipSpace(bytes, bodyEnd + 1);
  if (bytes[i] !== 0x5d || skipSpace(bytes, i + 1) !== bytes.length) return undefined; // ] and nothing after
  const length = codepointsOfJsonString(bytes, bodyStart, bodyEnd, into, 0);
  return length < 0 ? undefined : { time, length };
}

/**
 * Output lines decoded to code points, into two arrays taken in turn: the
 * event the reader holds back a line (a tapedeck.bytes event may follow)
 * keeps its array while the next line is decoded into the other.
 */
export class OutputLineDecoder {
  private readonly arrays = [new Uint32Array(0), new Uint32Array(0)];
  private turn = 0;

  constructor(private readonly maxTime: number) {}

  of(bytes: Buffer): { time: number; codepoints: Uint32Array } | undefined {
    let into = this.arrays[this.turn];
    if (into.length < bytes.length) into = this.arrays[this.turn] = new Uint32Array(Math.max(bytes.length, 2 * into.length));
    const line = decodeOutputLine(bytes, into, this.maxTime);
    if (!line) return undefined;
    this.turn ^= 1;
    return { time: line.time, codepoints: into.subarray(0, line.length) };
  }
}

/**
 * An output event decoded to code points; its data string is made only if
 * someone reads it. A class, not an object with a closure: two closures per
 * event made a 50 MB cast's reader grow its young heap by 35 MB.
 */
export class DecodedOutputEvent implements CastEvent {
  readonly code = 'o';
  bytes?: Buffer;
  private text?: string;

  constructor(
    readonly time: number,
    readonly line: number,
    readonly codepoints: Uint32Array,
    private readonly lineBytes: Buffer,
    private readonly dataOf: (line: number, bytes: Buffer) => string,
  ) {}

  get data(): string {
    return (this.text ??= this.dataOf(this.line, this.lineBytes));
  }
}
