import { dapMessage, mayBeDap } from './dap.js';

/**
 * What a JSON line is to the framing: a JSON-RPC request, notification or
 * response (or a batch of them), a DAP message in those terms (core/framing/dap.ts),
 * a seed-000 done line, or anything else.
 */
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
  return dapMessage(m) ?? { type: 'other' };
}

/**
 * A client message framed by id: JSON-RPC 2.0, or DAP (a request ends with the response whose
 * `request_seq` is its `seq`; the client's answer to an adapter's request ends at once).
 */
export function pairsById(value: Record<string, unknown>): boolean {
  return value.jsonrpc === '2.0' || dapMessage(value) !== undefined;
}

/** Whether a server line may be a response to route by id (cheap: no parse). */
export function mayCarryId(text: string): boolean {
  return text.includes('"id"') || mayBeDap(text) || text.trimStart().startsWith('[');
}

/** A response array answers a batch when it carries one of the batch's request ids. */
export function answersBatch(responseIds: string[], requestIds: string[]): boolean {
  return responseIds.some((id) => requestIds.includes(id));
}

export function parseObject(text: string): Record<string, unknown> | undefined {
  if (text[0] !== '{') return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function isDoneLine(text: string): boolean {
  if (!text.includes('"done"')) return false;
  try {
    const v = JSON.parse(text) as { kind?: unknown };
    return v !== null && typeof v === 'object' && v.kind === 'done';
  } catch {
    return false;
  }
}

