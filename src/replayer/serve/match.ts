import { classifyRpc } from '../../core/framing/boundary.js';
import { dapErrorResponse, idKey } from '../../core/framing/dap.js';
import { parseObject } from '../../core/framing/rpc.js';
import type { Normaliser } from '../../core/text/normalise.js';
import { restore } from '../../core/text/redact.js';
import type { ProtocolTape, TapePair } from '../../tape/protocol/tape.js';
import { type WireNote, wireOf } from '../../tape/protocol/wire.js';
import { splitMessages } from '../protocol/compare.js';
import { closestRequest } from './closest.js';

interface Candidate {
  wire?: WireNote;
  pair: TapePair;
  request: string;
  response: string;
  norm: string;
  /** The request with its JSON-RPC id removed, for clients that number requests differently. */
  normNoId?: string;
  used: boolean;
}

export interface Match {
  pair: TapePair;
  wire?: WireNote;
  /** The recorded response (renumbered for the client's JSON-RPC id), as text and as the bytes to send. */
  response: string;
  bytes: Buffer;
}

/**
 * What every `serve` transport answers with: the recorded response of the
 * first unused pair whose request matches (after normalisers), else of a used
 * one, else the same JSON-RPC request under another id, renumbered.
 */
export class TapeMatcher {
  private readonly candidates: Candidate[];

  constructor(
    tape: ProtocolTape,
    private readonly normaliser: Normaliser,
    env: NodeJS.ProcessEnv,
  ) {
    this.candidates = tape.pairs.map((pair) => {
      const where = { file: tape.path, line: pair.line };
      const request = restore(pair.request, env, where);
      const norm = normaliser.forRequest(request).apply(request);
      return {
        pair,
        wire: wireOf(pair),
        request,
        response: restore(pair.responseBytes ? pair.responseBytes.toString('latin1') : pair.response, env, where),
        norm,
        normNoId: withoutId(norm),
        used: false,
      };
    });
  }

  /** Whether any recorded pair was recorded as this HTTP method and path (a GET stream, say). */
  hasWire(test: (w: WireNote) => boolean): boolean {
    return this.candidates.some((c) => c.wire !== undefined && test(c.wire));
  }

  /**
   * `prefer` ranks pairs recorded the same way first, used or not (over HTTP:
   * with or without a bearer token, so an authorised client never gets a recorded 401).
   */
  match(request: string, prefer: (w: WireNote | undefined) => boolean = () => true): Match | undefined {
    const norm = this.normaliser.forRequest(request).apply(request);
    const same = (c: Candidate) => c.norm === norm;
    const exact =
      this.candidates.find((c) => !c.used && same(c) && prefer(c.wire)) ??
      this.candidates.find((c) => same(c) && prefer(c.wire)) ??
      this.candidates.find((c) => !c.used && same(c)) ??
      this.candidates.find(same);
    if (exact) {
      exact.used = true;
      return { pair: exact.pair, wire: exact.wire, response: exact.response, bytes: Buffer.from(exact.response, exact.pair.responseBytes ? 'latin1' : 'utf8') };
    }
    // Same request under another JSON-RPC id: answer with the recorded response, renumbered.
    const rpc = classifyRpc(request);
    const noId = rpc.type === 'request' ? withoutId(norm) : undefined;
    const renumbered = noId === undefined ? undefined : this.candidates.find((c) => !c.used && c.normNoId === noId) ?? this.candidates.find((c) => c.normNoId === noId);
    if (!renumbered || rpc.type !== 'request') return undefined;
    renumbered.used = true;
    const response = renumberResponse(renumbered.response, classifyRpc(renumbered.request), rpc.id);
    return { pair: renumbered.pair, wire: renumbered.wire, response, bytes: Buffer.from(response, renumbered.pair.responseBytes ? 'latin1' : 'utf8') };
  }

  /** The recorded request nearest to one that matched nothing (unused ones first), with how it differs. */
  closest(request: string) {
    const norm = this.normaliser.forRequest(request).apply(request);
    const unused = this.candidates.filter((c) => !c.used);
    return closestRequest(norm, unused.length > 0 ? unused : this.candidates);
  }

  unused(): Array<{ line: number; request: string }> {
    return this.candidates.filter((c) => !c.used).map((c) => ({ line: c.pair.line, request: c.pair.request }));
  }
}

/** The request without its id (a DAP request's `seq`). */
function withoutId(requestNorm: string): string | undefined {
  try {
    const v = JSON.parse(requestNorm) as Record<string, unknown>;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
    const key = idKey(v);
    if (!(key in v)) return undefined;
    const { [key]: _drop, ...rest } = v;
    return JSON.stringify(rest);
  } catch {
    return undefined;
  }
}

function renumberResponse(response: string, recorded: ReturnType<typeof classifyRpc>, liveId: string): string {
  if (recorded.type !== 'request') return response;
  return splitMessages(response)
    .map((line) => {
      const msg = classifyRpc(line);
      if (msg.type !== 'response' || msg.id !== recorded.id) return line;
      const v = JSON.parse(line) as Record<string, unknown>;
      v[idKey(v)] = JSON.parse(liveId);
      return `${JSON.stringify(v)}${line.endsWith('\n') ? '\n' : ''}`;
    })
    .join('');
}

/** What a client gets for an unknown request, in its own protocol, so it never hangs. */
export function unmatchedReply(request: string): string {
  const message = 'tapedeck serve: no recorded response for this request';
  const rpc = classifyRpc(request);
  const dap = rpc.type === 'request' ? parseObject(request) : undefined;
  if (dap && idKey(dap) === 'seq') return `${dapErrorResponse(dap, message)}\n`;
  if (rpc.type === 'request') {
    return `${JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(rpc.id), error: { code: -32601, message, data: { request } } })}\n`;
  }
  if (rpc.type === 'batch-request') {
    if (rpc.ids.length === 0) return '';
    return `${JSON.stringify(rpc.ids.map((id) => ({ jsonrpc: '2.0', id: JSON.parse(id), error: { code: -32601, message } })))}\n`;
  }
  if (rpc.type === 'notification' || rpc.type === 'response') return '';
  try {
    const v = JSON.parse(request) as Record<string, unknown>;
    if (v && typeof v === 'object' && typeof v.op === 'string') {
      return `${JSON.stringify({ kind: 'error', message: `${message}: ${request}` })}\n${JSON.stringify({ kind: 'done', exit_code: 2 })}\n`;
    }
  } catch {
    /* not JSON: nothing sensible to answer */
  }
  return '';
}
