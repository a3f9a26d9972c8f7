/**
 * The Debug Adapter Protocol is not JSON-RPC: every message has a `seq` (its
 * sender's own counter) and a `type`. A request (`"type":"request"`, a
 * `command`) is answered by the response whose `request_seq` is the request's
 * `seq`; events (`"type":"event"`) are like notifications. Framing, comparing
 * and serving see DAP messages in JSON-RPC's terms through this module, so a
 * DAP exchange pairs by `seq`/`request_seq`, and events and the adapter's own
 * requests (`runInTerminal`) are handled as notifications and server requests are.
 */
export type DapKind = { type: 'request'; id: string } | { type: 'response'; id: string } | { type: 'notification' };

/** A DAP message in JSON-RPC's terms (the id is the request's `seq`, as JSON text), or undefined. */
export function dapMessage(m: Record<string, unknown>): DapKind | undefined {
  if (typeof m.seq !== 'number') return undefined;
  if (m.type === 'request' && typeof m.command === 'string') return { type: 'request', id: JSON.stringify(m.seq) };
  if (m.type === 'response' && typeof m.request_seq === 'number') return { type: 'response', id: JSON.stringify(m.request_seq) };
  if (m.type === 'event' && typeof m.event === 'string') return { type: 'notification' };
  return undefined;
}

export function isDapRequest(m: Record<string, unknown>): boolean {
  return m.type === 'request' && typeof m.seq === 'number' && typeof m.command === 'string';
}

/** Whether a line may be a DAP message (cheap: no parse). */
export function mayBeDap(text: string): boolean {
  return text.includes('"seq"');
}

/** The key holding a message's own id: JSON-RPC's `id`, a DAP request's `seq`, a DAP response's `request_seq`. */
export function idKey(m: Record<string, unknown>): 'id' | 'seq' | 'request_seq' {
  const dap = 'id' in m ? undefined : dapMessage(m);
  return dap?.type === 'request' ? 'seq' : dap?.type === 'response' ? 'request_seq' : 'id';
}

/** What a message is called in drift titles and when matching server requests: JSON-RPC's method, DAP's command or event. */
export function messageName(m: Record<string, unknown>): string | undefined {
  if (typeof m.method === 'string') return m.method;
  if (dapMessage(m) === undefined) return undefined;
  return typeof m.command === 'string' ? m.command : typeof m.event === 'string' ? m.event : undefined;
}

/**
 * A DAP adapter's `seq` counts every message it sends, events included, so
 * where an event falls relative to a response (a race the adapter does not
 * control) changes the response's `seq`: it is left out when the adapter's
 * messages are compared, as the ids of a JSON-RPC server's own requests are.
 */
export function withoutAdapterSeq(raw: string): string {
  if (!mayBeDap(raw) || raw.trimStart()[0] !== '{') return raw;
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return raw;
  }
  if (dapMessage(v) === undefined) return raw;
  v.seq = '{{adapter-seq}}';
  return `${JSON.stringify(v)}${raw.endsWith('\n') ? '\n' : ''}`;
}

/** The error response a DAP client gets for a request: it names the request's `seq` and command, so the client never hangs. */
export function dapErrorResponse(request: Record<string, unknown>, message: string): string {
  return JSON.stringify({ seq: 0, type: 'response', request_seq: request.seq, command: request.command, success: false, message });
}
