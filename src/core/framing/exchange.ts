import type { ResolvedRule } from './rules.js';

/** One client request and the server output attributed to it (boundary.ts's ResponseFramer makes them). */
export interface Exchange {
  /** 0-based order of the request. */
  index: number;
  /** The request line, whitespace-trimmed (seed 000). */
  request: string;
  rule: ResolvedRule;
  /** For jsonrpc requests: the id whose response ends the exchange. */
  awaitingId?: string;
  /** For a JSON-RPC batch: the request ids whose response array ends the exchange. */
  awaitingBatch?: string[];
  chunks: Buffer[];
  complete: boolean;
  /** Any byte arrived for it (idle framing). */
  received?: boolean;
  /** Idle framing waits for a first byte before counting quiet. */
  expectsOutput?: boolean;
  /** Why it ended: its boundary, or end of stream before the boundary. */
  endedBy?: 'boundary' | 'eof';
  /** id rule: the request's id value (JSON text) whose line ends the exchange. */
  awaitingKey?: string;
  /** idle rule: written while the exchange before it had no byte yet (paired in order). */
  queuedBehind?: boolean;
  /** Ends once this many complete lines came (a replay knows the recorded count). */
  endAfterLines?: number;
  /**
   * Ends once the server has written this many complete lines in all (a replay of a
   * cancelled request: as many as the recording had when its cancel went). Counted
   * over the whole session, not the exchange: a server message on its own timer
   * (roots/list, a log line) may come a request earlier or later than recorded.
   */
  endAfterTotal?: number;
  /** Complete lines received. */
  lines?: number;
  /** A later client notification cancelled it. */
  cancelled?: boolean;
  sentAt?: number;
}

/** Complete lines in a text. */
export function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export function responseBytes(ex: Exchange): Buffer {
  // One line is the common answer: its bytes as they came, not a copy (callers only read them).
  return ex.chunks.length === 1 ? ex.chunks[0] : Buffer.concat(ex.chunks);
}
