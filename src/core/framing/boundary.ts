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
 * - id:PATH:  plain NDJSON whose requests carry an id at PATH (`--pair-by id`,
 *            CDP-style): the server line with the same value at PATH ends it;
 *            lines without one (events) go to the oldest waiting request. A
 *            request without the field is framed as idle.
 * - idle:MS: the next request ends the exchange, or MS of quiet. The quiet is
 *            counted from the first byte of the response when one is expected
 *            (so a slow-starting server is not taken for a silent one), else
 *            from the request. A request written while the one before has had
 *            no byte yet (a client writing ahead of a server still starting) is
 *            queued behind it, and then each server line ends the oldest of the
 *            queued exchanges: they are paired in order. A still-silent exchange
 *            older than MS when the next request comes, once the server has
 *            written anything at all, had no response.
 *            A replay knows the recorded response: an exchange ends as soon as
 *            it has as many lines as recorded (endAfterLines).
 * - auto:    per request: jsonrpc when it is a JSON-RPC 2.0 message or a DAP request
 *            (paired by seq/request_seq, events as notifications: dap.ts); done when it
 *            is a seed-000 request (has "op") or the server has already ended a
 *            response with a done line; otherwise idle:AUTO_IDLE_MS.
 *
 * Lines the server sends while no request is waiting (before the first, or
 * between responses) are kept and put at the start of the next request's
 * response; a recorder appends what follows the very last response to that
 * last pair. So every byte lands in some pair and every line stays a valid pair.
 */
import { classifyRpc, classifyRpcValue, answersBatch, parseObject, isDoneLine, mayCarryId, pairsById, type RpcMessage } from './rpc.js';
import { keyOf, keyOfLine } from './keyed.js';
import { cancelledId, DONE_RULE, JSONRPC_RULE, AUTO_IDLE_MS, type Boundary, type ResolvedRule } from './rules.js';

export { classifyRpc, classifyRpcValue, type RpcMessage } from './rpc.js';
export { AUTO_IDLE_MS, formatBoundary, pairByBoundary, parseBoundary, type Boundary, type ResolvedRule } from './rules.js';
export { countLines, responseBytes, type Exchange } from './exchange.js';
import { countLines, type Exchange } from './exchange.js';

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
  /** The server wrote something: before that, every request waits its turn (written before it was up). */
  private serverSpoke = false;
  private autoIdleRule?: ResolvedRule;
  /** Complete server lines so far, for endAfterTotal. */
  private totalLines = 0;
  /** Exchanges waiting for a line total (cancelled requests in a replay: few). */
  private readonly totalWaiters: Exchange[] = [];

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
      if (pairsById(value)) return JSONRPC_RULE;
      if (typeof value.op === 'string' || this.seenDone) return DONE_RULE;
    } else if (request[0] === '[' && /"jsonrpc"\s*:\s*"2\.0"/.test(request)) {
      return JSONRPC_RULE;
    }
    return this.seenDone ? DONE_RULE : (this.autoIdleRule ??= { kind: 'idle', ms: this.autoIdleMs });
  }

  /**
   * Registers one client line (blank lines are forwarded by callers but are no request).
   * `recorded`: the tape's response, when replaying: an idle exchange ends once it has as many
   * lines (the quiet period is then only waited for when the live response is shorter).
   * `endAfterLines`: the same for any rule. `endAfterTotal`: ends once the server's line total
   * reaches it (a cancelled request: see Exchange.endAfterTotal).
   */
  addRequest(line: string, options: { expectsOutput?: boolean; endAfterLines?: number; endAfterTotal?: number; recorded?: string } = {}): Exchange | undefined {
    const request = trimWhiteSpace(line); // as seed 000 trims (a leading BOM stays)
    if (request === '') return undefined;
    const now = performance.now();
    let behind = false;
    // The client moved on: an idle exchange that had output ends with it (the next request ends the
    // exchange); one still silent ends without a response if it waited its quiet period, else this
    // request queues behind it (written ahead of a server that has not answered yet).
    for (const ex of this.queue) {
      if (ex.complete || ex.rule.kind !== 'idle') continue;
      if (ex.received) {
        if (ex === this.oldestIncomplete()) {
          const tail = this.options.takePartial();
          if (tail) ex.chunks.push(tail);
        }
        this.markComplete(ex, 'boundary');
      } else if (!ex.expectsOutput || (this.serverSpoke && now - (ex.sentAt ?? 0) >= ex.rule.ms)) this.markComplete(ex, 'boundary');
      else behind = true;
    }
    // A held exchange is released with what it has; later output belongs to this request.
    if (this.options.holdLast && this.queue.length === 1 && this.queue[0].complete) this.options.onComplete(this.queue.shift()!);
    const value = parseObject(request);
    let rule = this.resolve(request, value);
    const awaitingKey = rule.kind === 'id' ? (value ? keyOf(value, rule.path) : undefined) : undefined;
    if (rule.kind === 'id' && awaitingKey === undefined) rule = this.autoIdleRule ??= { kind: 'idle', ms: this.autoIdleMs };
    const ex: Exchange = { index: this.nextIndex++, request, rule, chunks: this.orphan, complete: false, expectsOutput: options.expectsOutput ?? true, sentAt: now };
    if (options.endAfterLines !== undefined) ex.endAfterLines = options.endAfterLines;
    else if (rule.kind === 'idle' && options.recorded !== undefined && options.recorded.endsWith('\n')) ex.endAfterLines = countLines(options.recorded);
    if (awaitingKey !== undefined) ex.awaitingKey = awaitingKey;
    if (rule.kind === 'idle' && behind) ex.queuedBehind = true;
    this.orphan = [];
    if (rule.kind === 'jsonrpc') {
      const msg = value ? classifyRpcValue(value) : classifyRpc(request);
      if (msg.type === 'request') ex.awaitingId = msg.id;
      else if (msg.type === 'batch-request' && msg.ids.length > 0) ex.awaitingBatch = msg.ids;
      else {
        const cancelled = cancelledId(value);
        const target = cancelled === undefined ? undefined : this.queue.find((e) => !e.complete && e.awaitingId === cancelled);
        if (target) {
          target.cancelled = true;
          this.markComplete(target, 'boundary');
        }
        this.markComplete(ex, 'boundary'); // notifications and answers to server requests get no response
      }
    }
    if (ex.endAfterLines === 0 && !ex.complete) this.markComplete(ex, 'boundary');
    if (options.endAfterTotal !== undefined && !ex.complete) {
      ex.endAfterTotal = options.endAfterTotal;
      if (this.totalLines >= ex.endAfterTotal) this.markComplete(ex, 'boundary');
      else this.totalWaiters.push(ex);
    }
    this.queue.push(ex);
    this.armIdle();
    this.drain();
    return ex;
  }

  /** One complete server line (with its "\n"). */
  serverLine(line: Buffer): void {
    const text = line.toString('utf8');
    const rpc = mayCarryId(text) ? classifyRpc(text) : undefined;
    const keyed = this.boundary.kind === 'id' ? this.keyedOwner(text, this.boundary.path) : undefined;
    const target = keyed ?? this.route(rpc);
    this.totalLines++;
    if (!target) {
      this.orphan.push(line);
      if (isDoneLine(text)) this.seenDone = true;
      return;
    }
    target.chunks.push(line);
    target.lines = (target.lines ?? 0) + 1;
    if (keyed || (target.endAfterLines !== undefined && target.lines >= target.endAfterLines)) this.markComplete(target, 'boundary');
    else if (target.rule.kind === 'idle' && this.queue[this.queue.indexOf(target) + 1]?.queuedBehind) this.markComplete(target, 'boundary');
    else if (target.rule.kind === 'done' && isDoneLine(text)) {
      this.seenDone = true;
      this.markComplete(target, 'boundary');
    } else if (target.rule.kind === 'jsonrpc' && target.awaitingId !== undefined) {
      if (rpc?.type === 'response' && rpc.id === target.awaitingId) this.markComplete(target, 'boundary');
    } else if (target.rule.kind === 'jsonrpc' && target.awaitingBatch) {
      if (rpc?.type === 'batch-response' && answersBatch(rpc.ids, target.awaitingBatch)) this.markComplete(target, 'boundary');
    } else if (isDoneLine(text)) {
      this.seenDone = true;
    }
    if (this.totalWaiters.length > 0) this.endReachedTotals();
    this.drain();
  }

  /** Any server bytes arrived: quiet periods restart. */
  serverActivity(): void {
    this.serverSpoke = true;
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

  /** The tape gave up (a flood past the line limit): let go of the bytes held for it. */
  dropHeld(): void {
    for (const ex of this.queue) ex.chunks.length = 0;
    this.orphan = [];
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

  /** Ends an exchange as it is (a replay that stops waiting for a cancelled request's recorded output). */
  end(ex: Exchange): void {
    this.markComplete(ex, 'boundary');
    this.drain();
  }

  /** Ends the exchanges whose line total is reached (and forgets those that ended otherwise). */
  private endReachedTotals(): void {
    for (let i = this.totalWaiters.length - 1; i >= 0; i--) {
      const ex = this.totalWaiters[i];
      if (!ex.complete && this.totalLines < ex.endAfterTotal!) continue;
      this.totalWaiters.splice(i, 1);
      this.markComplete(ex, 'boundary');
    }
  }

  private keyedOwner(text: string, path: readonly string[]): Exchange | undefined {
    if (!this.queue.some((e) => !e.complete && e.awaitingKey !== undefined)) return undefined;
    const key = keyOfLine(text, path);
    return key === undefined ? undefined : this.queue.find((e) => !e.complete && e.awaitingKey === key);
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
