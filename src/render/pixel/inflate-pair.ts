import { constants, Inflate, InflateRaw } from 'node:zlib';

/**
 * Two zlib streams inflated together, the compressed bytes they share at the
 * start inflated once. Identical input drives inflate through identical
 * states, so the second stream's output is the first's as far as their bytes
 * agree: in two PNGs of one screen that differ in a few cells, up to the
 * deflate block holding the first change. pngjs (Z_RLE, level 9) ends a block
 * every 50 KB or so of output, so a change a third of the way down shares a
 * third of the file: inflating it again was 1.2 of the 4.2 ms the second
 * 1000x600 RGBA file took. (Chromium's encoder ends its first block about
 * three quarters down a screenshot: its pairs share a few bytes, no gain.)
 *
 * The second stream resumes at the last deflate block boundary inside the
 * shared bytes: as a zlib stream of its own, made of stored blocks holding
 * the output so far (so that zlib has the same window and checks the same
 * Adler-32 as for the whole stream), empty blocks that end on the boundary's
 * bit, and the rest of the second stream's bytes. zlib stops at block
 * boundaries (Z_BLOCK) but keeps to itself which bit of the byte a boundary
 * is on (0-7 bits of the last byte read are the next block's); each of the 8
 * is tried on the first stream, whose output from there is known, and the
 * second stream resumes only when exactly one of them reproduces it (the
 * right one always does; after a stored block several do, as its header is
 * zero bits). Otherwise, or when Node's zlib does not offer the calls this
 * needs, the second stream is inflated whole.
 */

const { Z_BLOCK, Z_FINISH, Z_NO_FLUSH } = constants;

/** Output shared below this is inflated again: resuming costs about 0.1 ms, what inflating 70 KB of a screenshot does. */
const MIN_SHARED = 64 * 1024;
/** How much of the first stream's output each bit position must reproduce. */
const PROBE = 4096;
const WINDOW = 32 * 1024;

export interface InflatedPair {
  /** Each stream's output (the start of `outA`, `outB`). */
  a: Buffer;
  b: Buffer;
  /** How many bytes at the start of both are known to be equal without comparing them (0 when none). */
  shared: number;
  /** The bit of the second stream where its inflating resumed (-1 when it was inflated whole). */
  bit: number;
}

/** Node's zlib stream driven one inflate() call at a time (its sync API only does whole streams). */
interface Engine {
  /** inflate(flush) from input[from..] into out[at..]: bytes read and written. Throws zlib's message. */
  write(flush: number, input: Uint8Array, from: number, out: Uint8Array, at: number): [number, number];
  /** The same, null for an error (no Error made: probing meets many). */
  attempt(flush: number, input: Uint8Array, from: number, out: Uint8Array, at: number): [number, number] | null;
  reset(): void;
  close(): void;
}

interface ZlibInternals {
  _handle?: { writeSync?: (...args: unknown[]) => void; close?: () => void; onerror?: unknown } | null;
  _writeState?: Uint32Array;
  reset(): void;
  close(): void;
}

function engine(raw: boolean, dictionary?: Buffer): Engine | null {
  const z = (raw ? new InflateRaw({ chunkSize: 64, dictionary }) : new Inflate({ chunkSize: 64 })) as unknown as ZlibInternals;
  const handle = z._handle;
  const state = z._writeState;
  if (!handle || typeof handle.writeSync !== 'function' || typeof handle.close !== 'function' || !(state instanceof Uint32Array) || state.length !== 2) {
    z.close();
    return null;
  }
  const failed: { message: string | null } = { message: null };
  // Node's own handler would destroy the stream; the message is all that is needed.
  handle.onerror = (message: string) => {
    failed.message = message;
  };
  const attempt = (flush: number, input: Uint8Array, from: number, out: Uint8Array, at: number): [number, number] | null => {
    failed.message = null;
    const inLen = input.length - from;
    const outLen = out.length - at;
    handle.writeSync!(flush, input, from, inLen, out, at, outLen);
    return failed.message === null ? [inLen - state[1], outLen - state[0]] : null;
  };
  return {
    attempt,
    write(flush, input, from, out, at) {
      const done = attempt(flush, input, from, out, at);
      if (!done) throw new Error(failed.message!);
      return done;
    },
    reset: () => z.reset(),
    // What Node's own sync inflate does: the handle closed, the stream left as it is (close() would
    // destroy it, with a tick scheduled: 6 us an inflate).
    close: () => {
      handle.close!();
      z._handle = null;
    },
  };
}

/**
 * Inflates zlib streams `da` and `db` into `outA` and `outB`; the same output
 * and the same errors as inflating each whole. Null when Node's zlib lacks
 * what this needs, or when a stream's output fills its buffer (the caller
 * inflates those its own way).
 */
export function inflatePair(da: Buffer, db: Buffer, outA: Buffer, outB: Buffer): InflatedPair | null {
  const x = engine(false);
  if (!x) return null;
  const same = commonPrefix(da, db);
  // The last block boundary zlib stops at whose bytes are all shared: [bytes read, bytes written].
  let boundary: [number, number] = [0, 0];
  let read = 0;
  let written = 0;
  try {
    // Deflate writes at most 1032 bytes a compressed byte (258 in 2 bits): fewer shared bytes hold no boundary worth it.
    while (same * 1032 >= MIN_SHARED) {
      const [r, w] = x.write(Z_BLOCK, da, read, outA, written);
      read += r;
      written += w;
      if (read > same || (r === 0 && w === 0)) break;
      boundary = [read, written];
    }
    written += x.write(Z_FINISH, da, read, outA, written)[1];
  } finally {
    x.close();
  }
  if (written === outA.length) return null;
  const [c, o] = boundary;
  // More output after the boundary: it ends a block that is not the last.
  const k = o >= MIN_SHARED && written - o >= PROBE ? boundaryBits(da, c, outA.subarray(0, written), o) : -1;
  const resumed = k >= 0 ? resume(db, c, k, outA.subarray(0, o), outB) : null;
  const b = resumed ?? inflateWhole(db, outB);
  if (!b) return null;
  return { a: outA.subarray(0, written), b, shared: resumed ? o : 0, bit: resumed ? 8 * c - k : -1 };
}

function inflateWhole(data: Buffer, out: Buffer): Buffer | null {
  const y = engine(false)!;
  try {
    const [, w] = y.write(Z_FINISH, data, 0, out, 0);
    return w === out.length ? null : out.subarray(0, w);
  } finally {
    y.close();
  }
}

/** Length of the common prefix of two buffers (native compares of 4 KB, then byte by byte). */
export function commonPrefix(x: Uint8Array, y: Uint8Array): number {
  const n = Math.min(x.length, y.length);
  const bx = Buffer.from(x.buffer, x.byteOffset, x.length);
  let at = 0;
  while (at + 4096 <= n && bx.compare(y, at, at + 4096, at, at + 4096) === 0) at += 4096;
  while (at < n && x[at] === y[at]) at++;
  return at;
}

/**
 * How many bits of byte c - 1 (0-7, its high ones) start the block after the
 * boundary where zlib stopped having read c bytes and written `o`: the one
 * count that resumes to reproduce the next PROBE bytes of `out`; -1 when none
 * or more than one does.
 */
function boundaryBits(data: Buffer, c: number, out: Buffer, o: number): number {
  const r = engine(true, out.subarray(Math.max(0, o - WINDOW), o))!;
  const want = out.subarray(o, o + PROBE);
  const got = Buffer.allocUnsafe(PROBE);
  let found = -1;
  try {
    for (let k = 0; k < 8; k++) {
      if (k > 0) r.reset();
      // Null where there is no block to start (an error).
      const pad = k > 0 ? r.attempt(Z_NO_FLUSH, resumeBits(k, data[c - 1]), 0, got, 0) : [0, 0];
      const rest = pad && r.attempt(Z_NO_FLUSH, data, c, got, pad[1]);
      if (!pad || !rest || pad[1] + rest[1] !== PROBE || !got.equals(want)) continue;
      if (found >= 0) return -1;
      found = k;
    }
  } finally {
    r.close();
  }
  return found;
}

/**
 * `data` inflated as a zlib stream whose output starts with `prefix` and
 * whose block after it starts k bits before byte c: its header, `prefix` in
 * stored blocks, empty blocks to that bit, then data[c - 1]'s top k bits and
 * data[c..].
 */
function resume(data: Buffer, c: number, k: number, prefix: Buffer, out: Buffer): Buffer | null {
  const y = engine(false)!;
  try {
    let written = y.write(Z_NO_FLUSH, data.subarray(0, 2), 0, out, 0)[1];
    const head = Buffer.alloc(5);
    for (let at = 0; at < prefix.length; at += 0xffff) {
      const len = Math.min(0xffff, prefix.length - at);
      head.writeUInt16LE(len, 1);
      head.writeUInt16LE(len ^ 0xffff, 3);
      y.write(Z_NO_FLUSH, head, 0, out, written);
      written += y.write(Z_NO_FLUSH, prefix.subarray(at, at + len), 0, out, written)[1];
    }
    if (written !== prefix.length) return null;
    if (k > 0) y.write(Z_NO_FLUSH, resumeBits(k, data[c - 1]), 0, out, written);
    written += y.write(Z_FINISH, data, c, out, written)[1];
    return written === out.length ? null : out.subarray(0, written);
  } finally {
    y.close();
  }
}

/** Empty deflate blocks ending at bit 8 - k of a byte, that byte completed by the top k bits of `byte`. */
function resumeBits(k: number, byte: number): Buffer {
  const pad = ALIGN[8 - k];
  const bytes = Buffer.from(pad);
  bytes[bytes.length - 1] |= byte & (0xff << (8 - k));
  return bytes;
}

/**
 * ALIGN[b]: empty non-final deflate blocks b bits past a byte boundary (b 1-7),
 * the last byte partial. A fixed-code block with only its end code is 10 bits
 * (b 2, 4, 6: one to three of them); an odd b starts with a dynamic-code block
 * of 99 bits (b 3), whose only code is the end code.
 */
export const ALIGN: Uint8Array[] = [];
{
  for (let b = 1; b < 8; b++) {
    const bits: number[] = [];
    const put = (v: number, n: number) => {
      for (let i = 0; i < n; i++) bits.push((v >> i) & 1);
    };
    const code = (v: number, n: number) => {
      for (let i = n - 1; i >= 0; i--) bits.push((v >> i) & 1);
    };
    if (b % 2 === 1) {
      // Not last, dynamic; 257 literal/length codes, 1 distance code, 18 code-length code lengths.
      put(0, 1), put(2, 2), put(0, 5), put(0, 5), put(14, 4);
      // Code-length codes, in deflate's order, of 2 bits for 0, 1, 17 and 18 (codes 00, 01, 10, 11).
      for (const s of [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1]) put(s === 0 || s === 1 || s === 17 || s === 18 ? 2 : 0, 3);
      // 138 + 115 + 3 zero lengths, the end code's length 1, the distance code's 0; then the end code.
      code(3, 2), put(127, 7), code(3, 2), put(104, 7), code(2, 2), put(0, 3), code(1, 2), code(0, 2);
      code(0, 1);
    }
    const fixed = b % 2 === 1 ? ((b + 5) % 8) / 2 : b / 2;
    for (let i = 0; i < fixed; i++) put(0, 1), put(1, 2), code(0, 7);
    if (bits.length % 8 !== b) throw new Error(`inflate-pair: alignment blocks for bit ${b} end at bit ${bits.length % 8}`);
    const bytes = new Uint8Array(Math.ceil(bits.length / 8));
    for (const [i, bit] of bits.entries()) bytes[i >> 3] |= bit << (i & 7);
    ALIGN[b] = bytes;
  }
}
