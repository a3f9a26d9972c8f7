import { classifyRpc } from '../../core/framing/boundary.js';
import type { PreparedTape } from './prepare.js';

/**
 * Answers the requests a live server makes of its client (MCP sampling,
 * elicitation, roots/list) from the tape: the recorded client answer to the
 * recorded request of the same method and params (else the first unanswered one of
 * that method) goes back with the live id when the live server asks, never
 * before: the driver holds the answer's pair until then. Without this the exchange
 * the request blocks never ends (the tape holds the answer as a later pair).
 * A request the tape never saw gets a JSON-RPC error, so the server is not left
 * waiting; the comparison reports it as an unexpected server message.
 */
export class TapeAnswers {
  private readonly used = new Set<number>();
  /** Pairs already sent to the server, by the driver or from here. */
  readonly sent: PairSet;

  constructor(
    private readonly prepared: PreparedTape,
    private readonly withDir: (text: string) => string = (t) => t,
  ) {
    this.sent = new PairSet(prepared.count);
    this.answers = new PairSet(prepared.count);
    for (const r of prepared.serverRequests) if (r.answerPair !== undefined) this.answers.add(r.answerPair);
  }

  private readonly answers: PairSet;

  /** The pair is the recorded client's answer to a server request: it goes when the live server asks. */
  isAnswer(pair: number): boolean {
    return this.answers.has(pair);
  }

  /** For a live server line: what to send back, and the pair it is (if from the tape). */
  answer(line: string): { text: string; pair?: number } | undefined {
    if (!line.includes('"method"') || !line.includes('"id"')) return undefined;
    const msg = classifyRpc(line);
    if (msg.type !== 'request') return undefined;
    const parsed = JSON.parse(line) as { method: string; params?: unknown };
    const method = parsed.method;
    const params = JSON.stringify(parsed.params ?? null);
    // Matched by method and params (the ids are the server's own counter), else by method alone.
    const all = this.prepared.serverRequests;
    let k = all.findIndex((r, i) => !this.used.has(i) && r.method === method && r.params === params);
    if (k === -1) k = all.findIndex((r, i) => !this.used.has(i) && r.method === method);
    if (k === -1) {
      const error = { code: -32601, message: `tapedeck: the tape has no ${method} request from the server to answer` };
      return { text: JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(msg.id) as unknown, error }) };
    }
    this.used.add(k);
    const q = this.prepared.serverRequests[k].answerPair;
    if (q === undefined || this.sent.has(q)) return undefined; // the recorded client never answered, or it went already
    this.sent.add(q);
    const recorded = this.withDir(this.prepared.at(q).send);
    return { text: msg.id === this.prepared.serverRequests[k].id ? recorded : withId(recorded, msg.id), pair: q };
  }
}

function withId(answer: string, id: string): string {
  const v = JSON.parse(answer) as Record<string, unknown>;
  v.id = JSON.parse(id);
  return JSON.stringify(v);
}

/** A set of pair indexes, one byte each (every pair of a tape is asked about). */
export class PairSet {
  private readonly bits: Uint8Array;
  constructor(pairs: number) {
    this.bits = new Uint8Array(pairs);
  }
  has(pair: number): boolean {
    return this.bits[pair] === 1;
  }
  add(pair: number): void {
    this.bits[pair] = 1;
  }
}
