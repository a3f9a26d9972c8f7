import { usageError } from '../diagnostics/errors.js';
import { trimWhiteSpace } from '../text/trim.js';

/**
 * Where a response ends. The recorder, the replayer and the stand-in server
 * all frame responses with this one module, so a tape recorded under a rule
 * replays under the same rule.
 *
 * - done:    the response ends with a line whose JSON has "kind":"done" (seed 000).
 * - jsonrpc: JSON-RPC 2.0 over NDJSON (MCP stdio): a request's response ends with
 *            the message carrying its id; notifications and the client's answers
 *            to server requests get none.
 * - idle:MS: whatever arrives until MS of quiet. The quiet period is counted
 *            from the first byte of the response when one is expected (so a
 *            slow-starting server is not taken for a silent one), else from
 *            the request; a recorder ends a still-silent exchange when the
 *            client sends its next request.
 * - auto:    per request: jsonrpc when it is a JSON-RPC 2.0 message; done when it
 *            is a seed-000 request (has "op") or the server has already ended a
 *            response with a done line; otherwise idle:AUTO_IDLE_MS.
 *
 * Lines the server sends while no request is waiting (before the first, or
 * between responses) are kept and put at the start of the next request's
 * response; a recorder appends what follows the very last response to that
 * last pair. So every byte lands in some pair and every line stays a valid pair.
 */
export type Boundary = { kind: 'auto' } | { kind: 'done' } | { kind: 'jsonrpc' } | { kind: 'idle'; ms: number };
export type ResolvedRule = { kind: 'done' } | { kind: 'jsonrpc' } | { kind: 'idle'; ms: number };

export const AUTO_IDLE_MS = 300;

// Shared by every exchange they frame (rules are never changed once resolved).
const JSONRPC_RULE: ResolvedRule = Object.freeze({ kind: 'jsonrpc' });
const DONE_RULE: ResolvedRule = Object.freeze({ kind: 'done' });

export function parseBoundary(spec: string): Boundary {
  if (spec === 'auto' || spec === 'done' || spec === 'jsonrpc') return { kind: spec };
  const m = /^idle:(\d+)$/.exec(spec);
  if (m) return { kind: 'idle', ms: Number(m[1]) };
  throw usageError(`--boundary must be auto, done, jsonrpc or idle:MS, got ${JSON.stringify(spec)}`);
}

export function formatBoundary(b: Boundary): string {
  return b.kind === 'idle' ? `idle:${b.ms}` : b.kind;
}

/** What one JSON-RPC line is, from the framing point of view. */
export type RpcMessage =
  | { type: 'request'; id: string }
  | { type: 'notification' }
  | { type: 'response'; id: string }
  /** A batch (JSON array): the ids of the requests in it, or of the responses in it. */
  | { type: 'batch-request'; ids: string[] }
  | { type: 'batch-response'; ids: string[] }
  | { type: 'other' };

export function classifyRpc(text: string): RpcMessage {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return { type: 'other' };
  }
  return classifyRpcValue(msg);
}

export function classifyRpcValue(msg: unknown): RpcMessage {
  if (Array.isArray(msg)) {
    const parts = msg.map(classifyRpcValue);
    if (parts.length > 0 && parts.every((p) => p.type === 'response')) return { type: 'batch-response', ids: parts.map((p) => (p as { id: string }).id) };
    if (parts.some((p) => p.type === 'request' || p.type === 'notification')) {
      return { type: 'batch-request', ids: parts.flatMap((p) => (p.type === 'request' ? [p.id] : [])) };
    }
    return { type: 'other' };
  }
  if (msg === null || typeof msg !== 'object') return { type: 'other' };
  const m = msg as Record<string, unknown>;
  const hasId = 'id' in m && m.id !== undefined;
  if (typeof m.method === 'string') return hasId ? { type: 'request', id: JSON.stringify(m.id) } : { type: 'notification' };
  if (hasId && ('result' in m || 'error' in m)) return { type: 'response', id: JSON.stringify(m.id) };
  return { type: 'other' };
}

/** A response array answers a batch when it carries one of the batch's request ids. */
function answersBatch(responseIds: string[], requestIds: string[]): boolean {
  return responseIds.some((id) => requestIds.includes(id));
}

function parseObject(text: string): Record<string, unknown> | undefined {
  if (text[0] !== '{') return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function isDoneLine(text: string): boolean {
  if (!text.includes('"done"')) return false;
  try {
    const v = JSON.parse(text) as { kind?: unknown };
    return v !== null && typeof v === 'object' && v.kind === 'done';
  } catch {
    return false;
  }
}

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
}

export function responseBytes(ex: Exchange): Buffer {
  return Buffer.concat(ex.chunks);
}

export interface FramerOptions {
  autoIdleMs?: number;
  /** Called once per exchange, in request order. */
  onComplete: (ex: Exchange) => void;
  /**
   * Hands over the server's bytes after its last newline (a prompt, say), so an
   * idle boundary closes the exchange with them rather than leaving them for
   * the next one. Whoever splits the server's output into lines provides it.
   */
  takePartial: () => Buffer | undefined;
  /**
   * Hold the latest completed exchange back until the next request or the end
   * of the stream, so server messages that follow the last response (a late
   * notification) land in it instead of being lost. For recorders; a replayer
   * must hear of completion at once to send its next request.
   */
  holdLast?: boolean;
}

/**
 * Attributes server output to client requests. Requests may overlap (a client
 * need not wait for a response before its next request); completed exchanges
 * are handed out in request order.
 */
export class ResponseFramer {
  private readonly queue: Exchange[] = [];
  private orphan: Buffer[] = [];
  private seenDone = false;
  private nextIndex = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  /** finish() was called: nothing more will come, so nothing is held back. */
  private ending = false;
  private readonly autoIdleMs: number;
  private autoIdleRule?: ResolvedRule;

  constructor(
    private readonly boundary: Boundary,
    private readonly options: FramerOptions,
  ) {
    this.autoIdleMs = options.autoIdleMs ?? AUTO_IDLE_MS;
  }

  /** The index the next request will get. */
  get nextRequestIndex(): number {
    return this.nextIndex;
  }

  get pendingCount(): number {
    return this.queue.length;
  }

  resolveRule(request: string): ResolvedRule {
    return this.resolve(request, parseObject(request));
  }

  private resolve(request: string, value: Record<string, unknown> | undefined): ResolvedRule {
    if (this.boundary.kind !== 'auto') return this.boundary;
    if (value) {
      if (value.jsonrpc === '2.0') return JSONRPC_RULE;
      if (typeof value.op === 'string' || this.seenDone) return DONE_RULE;
    } else if (request[0] === '[' && /"jsonrpc"\s*:\s*"2\.0"/.test(request)) {
      return JSONRPC_RULE;
    }
    return this.seenDone ? DONE_RULE : (this.autoIdleRule ??= { kind: 'idle', ms: this.autoIdleMs });
  }

  /** Registers one client line. Blank lines are forwarded by callers but are no request. */
  addRequest(line: string, options: { expectsOutput?: boolean } = {}): Exchange | undefined {
    const request = trimWhiteSpace(line); // as seed 000 trims (a leading BOM stays)
    if (request === '') return undefined;
    // The client moved on: an idle exchange that never got a byte had no response.
    for (const ex of this.queue) if (!ex.complete && ex.rule.kind === 'idle' && !ex.received) this.markComplete(ex, 'boundary');
    // A held exchange is released with what it has; later output belongs to this request.
    if (this.options.holdLast && this.queue.length === 1 && this.queue[0].complete) this.options.onComplete(this.queue.shift()!);
    const value = parseObject(request);
    const rule = this.resolve(request, value);
    const ex: Exchange = { index: this.nextIndex++, request, rule, chunks: this.orphan, complete: false, expectsOutput: options.expectsOutput ?? true };
    this.orphan = [];
    if (rule.kind === 'jsonrpc') {
      const msg = value ? classifyRpcValue(value) : classifyRpc(request);
      if (msg.type === 'request') ex.awaitingId = msg.id;
      else if (msg.type === 'batch-request' && msg.ids.length > 0) ex.awaitingBatch = msg.ids;
      else this.markComplete(ex, 'boundary'); // notifications and answers to server requests get no response
    }
    this.queue.push(ex);
    this.armIdle();
    this.drain();
    return ex;
  }

  /** One complete server line (with its "\n"). */
  serverLine(line: Buffer): void {
    const text = line.toString('utf8');
    const rpc = text.includes('"id"') || text.trimStart().startsWith('[') ? classifyRpc(text) : undefined;
    const target = this.route(rpc);
    if (!target) {
      this.orphan.push(line);
      if (isDoneLine(text)) this.seenDone = true;
      return;
    }
    target.chunks.push(line);
    if (target.rule.kind === 'done' && isDoneLine(text)) {
      this.seenDone = true;
      this.markComplete(target, 'boundary');
    } else if (target.rule.kind === 'jsonrpc' && target.awaitingId !== undefined) {
      if (rpc?.type === 'response' && rpc.id === target.awaitingId) this.markComplete(target, 'boundary');
    } else if (target.rule.kind === 'jsonrpc' && target.awaitingBatch) {
      if (rpc?.type === 'batch-response' && answersBatch(rpc.ids, target.awaitingBatch)) this.markComplete(target, 'boundary');
    } else if (isDoneLine(text)) {
      this.seenDone = true;
    }
    this.drain();
  }

  /** Any server bytes arrived: quiet periods restart. */
  serverActivity(): void {
    const head = this.oldestIncomplete();
    if (head?.rule.kind !== 'idle') return;
    head.received = true;
    this.armIdle(true);
  }

  /** Bytes after the last newline when the stream ends or goes quiet. */
  serverPartial(tail: Buffer): void {
    const target = this.oldestIncomplete();
    if (target) target.chunks.push(tail);
    else this.orphan.push(tail);
  }

  /** End of the server's output: every waiting exchange ends as it is. Returns unattributed trailing bytes. */
  finish(): Buffer {
    this.clearIdle();
    for (const ex of this.queue) if (!ex.complete) this.markComplete(ex, 'eof');
    const last = this.queue[this.queue.length - 1];
    if (this.options.holdLast && last && this.orphan.length > 0) {
      last.chunks.push(...this.orphan);
      this.orphan = [];
    }
    this.ending = true;
    this.drain();
    const rest = Buffer.concat(this.orphan);
    this.orphan = [];
    return rest;
  }

  /** Stops timers without completing anything (the owner is giving up). */
  dispose(): void {
    this.clearIdle();
  }

  private route(rpc: RpcMessage | undefined): Exchange | undefined {
    // A JSON-RPC response goes to the request with its id, wherever it is in the queue.
    if (rpc?.type === 'response') {
      const owner = this.queue.find((e) => !e.complete && e.awaitingId === rpc.id);
      if (owner) return owner;
    }
    if (rpc?.type === 'batch-response') {
      const owner = this.queue.find((e) => !e.complete && e.awaitingBatch && answersBatch(rpc.ids, e.awaitingBatch));
      if (owner) return owner;
    }
    return this.oldestIncomplete();
  }

  private oldestIncomplete(): Exchange | undefined {
    for (const ex of this.queue) if (!ex.complete) return ex;
    return undefined;
  }

  private markComplete(ex: Exchange, endedBy: 'boundary' | 'eof'): void {
    if (ex.complete) return;
    ex.complete = true;
    ex.endedBy = endedBy;
    this.armIdle();
  }

  private drain(): void {
    while (this.queue.length > 0 && this.queue[0].complete) {
      if (this.options.holdLast && this.queue.length === 1 && !this.ending) return;
      const ex = this.queue.shift()!;
      this.options.onComplete(ex);
    }
  }


  /** The quiet timer belongs to the oldest waiting exchange when its rule is idle. */
  private armIdle(restart = false): void {
    const head = this.oldestIncomplete();
    if (!head || head.rule.kind !== 'idle' || (head.expectsOutput && !head.received)) {
      this.clearIdle();
      return;
    }
    if (this.idleTimer && !restart) return;
    this.clearIdle();
    const ms = head.rule.ms;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      const tail = this.options.takePartial();
      if (tail) head.chunks.push(tail);
      this.markComplete(head, 'boundary');
      this.drain();
    }, ms);
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }
}
