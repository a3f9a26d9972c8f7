import { usageError } from '../diagnostics/errors.js';
import { parseKeyPath } from './keyed.js';

/** The framing rules (what each means: core/boundary.ts), as flags and config spell them. */
export type Boundary = { kind: 'auto' } | ResolvedRule;
export type ResolvedRule = { kind: 'done' } | { kind: 'jsonrpc' } | { kind: 'idle'; ms: number } | { kind: 'id'; path: string[] };

export const AUTO_IDLE_MS = 300;

// Shared by every exchange they frame (rules are never changed once resolved).
export const JSONRPC_RULE: ResolvedRule = Object.freeze({ kind: 'jsonrpc' });
export const DONE_RULE: ResolvedRule = Object.freeze({ kind: 'done' });

export function parseBoundary(spec: string): Boundary {
  if (spec === 'auto' || spec === 'done' || spec === 'jsonrpc') return { kind: spec };
  const m = /^idle:(\d+)$/.exec(spec);
  if (m) return { kind: 'idle', ms: Number(m[1]) };
  const id = /^id:(.+)$/.exec(spec);
  const path = id ? parseKeyPath(id[1]) : undefined;
  if (path) return { kind: 'id', path };
  throw usageError(`--boundary must be auto, done, jsonrpc, idle:MS or id:PATH (PATH: dot-separated keys), got ${JSON.stringify(spec)}`);
}

/** `--pair-by PATH`: the id rule at PATH (refused like a bad --boundary). */
export function pairByBoundary(path: string): Boundary {
  const keys = parseKeyPath(path);
  if (!keys) throw usageError(`--pair-by must be a dot-separated key path such as id or meta.request_id, got ${JSON.stringify(path)}`);
  return { kind: 'id', path: keys };
}

export function formatBoundary(b: Boundary): string {
  return b.kind === 'idle' ? `idle:${b.ms}` : b.kind === 'id' ? `id:${b.path.join('.')}` : b.kind;
}


/** Client notifications that cancel a request: MCP's and LSP/DAP's. Their request's exchange ends with them. */
export function cancelledId(value: Record<string, unknown> | undefined): string | undefined {
  if (!value || (value.method !== 'notifications/cancelled' && value.method !== '$/cancelRequest') || 'id' in value) return undefined;
  const params = value.params as Record<string, unknown> | undefined;
  const id = params?.requestId ?? params?.id;
  return typeof id === 'string' || typeof id === 'number' ? JSON.stringify(id) : undefined;
}
