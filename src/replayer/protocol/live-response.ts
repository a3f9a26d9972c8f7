import type { Exchange, ResolvedRule } from '../../core/framing/boundary.js';

/**
 * What a replay keeps of one live response once its exchange has ended. The
 * common case, a response byte for byte the recorded one, keeps nothing of its
 * own: a 50,000-pair replay holds the tape once, not the tape plus 50,000
 * buffers. Only a response that differs keeps its own text and exact bytes
 * (accepting it rewrites the tape with them).
 */
export type LiveResponse = SameResponse | DifferentResponse;

/** Byte for byte the recorded response: one shared object per rule, nothing per pair. */
export interface SameResponse {
  same: true;
  rule: ResolvedRule;
}

export interface DifferentResponse {
  same: false;
  rule: ResolvedRule;
  awaitingId?: string;
  /** Decoded as the comparison decodes it: latin1 for a pair the tape keeps as raw bytes, else UTF-8. */
  text: string;
  /** The exact bytes (accepting the response writes them). */
  bytes: Buffer;
  /** Its line count as `split('\n')` counts them. */
  lines: number;
}

const sameByRule = new WeakMap<ResolvedRule, SameResponse>();

/**
 * Compacts a completed exchange against the recorded response (already with
 * the scratch directory in place). Bytes first: the decoded text is compared to
 * the recorded string; nothing is parsed here. A same response needs no
 * awaited id: comparePairs skips identical pairs after taking what trailed them.
 */
export function liveResponse(ex: Exchange, expected: string, rawBytes: boolean): LiveResponse {
  const chunks = ex.chunks;
  const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  const text = bytes.toString(rawBytes ? 'latin1' : 'utf8');
  // U+FFFD may stand for bytes that were not UTF-8 (and raw-byte pairs show as UTF-8): then only the bytes say what came.
  if (text === expected && !rawBytes && !text.includes('\uFFFD')) {
    let same = sameByRule.get(ex.rule);
    if (!same) sameByRule.set(ex.rule, (same = { same: true, rule: ex.rule }));
    return same;
  }
  // A single chunk is a view into the pipe's read buffer: copied, so it does not hold that buffer.
  return { same: false, rule: ex.rule, awaitingId: ex.awaitingId, text, bytes: chunks.length === 1 ? Buffer.from(bytes) : bytes, lines: newlines(bytes) + 1 };
}

/** The text the comparison sees (`expected`: the recorded response with the scratch directory in place). */
export function liveCompared(r: LiveResponse, expected: string): string {
  return r.same ? expected : r.text;
}

/** The live bytes of a response (rebuilt from the recorded text when identical: it was valid UTF-8). */
export function liveBytes(r: LiveResponse, expected: string): Buffer {
  return r.same ? Buffer.from(expected, 'utf8') : r.bytes;
}

/** The live response as UTF-8 text, as a pair outcome shows it. */
export function liveText(r: LiveResponse, expected: string): string {
  return r.same ? expected : r.bytes.toString('utf8');
}

/**
 * The live responses of one tape's replay, by pair index, in one place for all
 * its sessions. A same response is one byte (which shared SameResponse) instead
 * of a map entry: a 50,000-pair replay keeps 50 KB here, not a map of 50,000.
 */
export class LiveResponses {
  /** 0: none yet; k > 0: same, the (k-1)-th shared SameResponse; DIFFERENT: in `different`. */
  private readonly state: Uint8Array;
  private readonly sames: SameResponse[] = [];
  private readonly different = new Map<number, LiveResponse>();

  constructor(pairs: number) {
    this.state = new Uint8Array(pairs);
  }

  set(pair: number, r: LiveResponse): void {
    let k = r.same ? this.sames.indexOf(r) : -1;
    if (r.same && k === -1 && this.sames.length < DIFFERENT - 1) k = this.sames.push(r) - 1;
    if (k === -1) {
      this.different.set(pair, r);
      this.state[pair] = DIFFERENT;
    } else {
      this.different.delete(pair);
      this.state[pair] = k + 1;
    }
  }

  get(pair: number): LiveResponse | undefined {
    const k = this.state[pair];
    return k === 0 ? undefined : k === DIFFERENT ? this.different.get(pair) : this.sames[k - 1];
  }
}

const DIFFERENT = 255;

/** `text.split('\n').length` without the array. */
export function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function newlines(bytes: Buffer): number {
  let n = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) n++;
  return n;
}
