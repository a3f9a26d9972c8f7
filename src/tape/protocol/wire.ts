/**
 * How a pair travelled when it was not stdio: a `wire` object beside
 * `request` and `response` in the tape line. Seed-000 readers ignore the key,
 * so every line stays a plain pair; tapedeck's replayer reads it to send each
 * request the way it was recorded (method, path, batch, session), and
 * `--update` keeps it (other keys are carried over).
 */
export type Transport = 'stdio' | 'http' | 'unix';

export interface WireNote {
  transport: 'http' | 'unix';
  /** HTTP: the method and path the request used. */
  method?: string;
  path?: string;
  /** HTTP: the status and content type of the recorded response. */
  status?: number;
  content_type?: string;
  /** The response was an SSE stream; `response` holds each event's data as one line. */
  sse?: boolean;
  /** Seed 000 POST /v1/agent/batch: pairs with the same number went in one body. */
  batch?: number;
  /** Unix: the connection; MCP: the Mcp-Session-Id, as a number (the ids themselves are random). */
  session?: number;
  /** MCP's GET stream: opened after this many pairs of its session had completed. */
  after?: number;
  /** The request carried a bearer token (never stored; replay supplies one). */
  auth?: boolean;
  /** Request headers that shape the answer (Accept, Content-Type, MCP-Protocol-Version). */
  headers?: Record<string, string>;
}

export const WIRE_KEY = 'wire';

/** The note of a stored tape line, when it has one. */
export function wireOf(raw: string): WireNote | undefined {
  if (!raw.includes(`"${WIRE_KEY}"`)) return undefined;
  try {
    const v = (JSON.parse(raw) as Record<string, unknown>)[WIRE_KEY] as WireNote | undefined;
    return v && typeof v === 'object' && (v.transport === 'http' || v.transport === 'unix') ? v : undefined;
  } catch {
    return undefined;
  }
}

/** A formatted pair line (no newline) with the note added as its last key. */
export function withWire(line: string, wire: WireNote | undefined): string {
  return wire ? `${line.slice(0, -1)},${JSON.stringify(WIRE_KEY)}:${JSON.stringify(wire)}}` : line;
}

/** The request text a body-less HTTP request is recorded under (seed 000: "the method and path"). */
export function methodPathRequest(method: string, path: string): string {
  return `${method} ${path}`;
}

/** Seed 000's batch endpoint (POST /v1/agent/batch): one request per body line. */
export function isBatchPath(path: string): boolean {
  return /\/batch(\?|$)/.test(path);
}

/** The variable a bearer token seen in a body is stored as; replay and serve take it from --auth-token. */
export const AUTH_TOKEN_VAR = 'TAPEDECK_AUTH_TOKEN';

/**
 * The highest session and batch numbers already in a tape, so a recording
 * appended to it (seed 000's append mode) numbers on instead of merging its
 * sessions with the last ones. 0 when the tape is new or unreadable.
 */
export function lastNumbers(path: string, read: (p: string) => string): { session: number; batch: number } {
  let text = '';
  try {
    text = read(path);
  } catch {
    return { session: 0, batch: 0 };
  }
  const max = (key: string) => {
    let n = 0;
    for (const m of text.matchAll(new RegExp(`"${key}":(\\d+)`, 'g'))) n = Math.max(n, Number(m[1]));
    return n;
  };
  return { session: max('session'), batch: max('batch') };
}
