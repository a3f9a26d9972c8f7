import { TapedeckError } from '../../core/diagnostics/errors.js';

/**
 * How a pair travelled when it was not stdio. Tapes written since issue 31
 * keep it in the notes file beside the tape (`<tape>.notes`, tape/notes.ts),
 * so every tape line is exactly seed 000's `{"request","response"}`; older
 * tapes carry it as a `wire` key inside the line, which is still read.
 * tapedeck's replayer uses it to send each request the way it was recorded
 * (method, path, batch, session).
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
  /**
   * MCP's legacy HTTP+SSE transport (2024-11-05): the session's GET stream named the POST
   * endpoint in its first event, and the answers to the POSTs (202 Accepted) came on that
   * stream, framed into each pair's response as over stdio. The endpoint's random session id
   * is stored as SESSION_PLACEHOLDER in `path`.
   */
  legacy_sse?: boolean;
}

/** The random `?sessionId=` of a legacy SSE endpoint, as the tape stores it (replay and serve put a live one). */
export const SESSION_PLACEHOLDER = '{{tapedeck.session}}';

export const WIRE_KEY = 'wire';

/**
 * The note as read from a tape line or a notes line, validated: a note
 * tapedeck could not replay faithfully (a transport it does not know, a status
 * that is not a number) is bad input, exit 2, naming the file and line.
 */
export function checkWireNote(value: unknown, where: { file: string; line: number }): WireNote {
  const bad = (what: string) => new TapedeckError('TD2001', `not a valid wire note: ${what}`, { location: where });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad('"wire" must be an object');
  const w = value as Record<string, unknown>;
  if (w.transport !== 'http' && w.transport !== 'unix') throw bad(`"transport" must be "http" or "unix", got ${JSON.stringify(w.transport)}`);
  const str = (k: string, test: (v: string) => boolean, what: string) => {
    if (w[k] !== undefined && (typeof w[k] !== 'string' || !test(w[k] as string))) throw bad(`"${k}" must be ${what}, got ${JSON.stringify(w[k])}`);
  };
  const int = (k: string, min: number, max: number) => {
    const v = w[k];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)) throw bad(`"${k}" must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  };
  const bool = (k: string) => {
    if (w[k] !== undefined && typeof w[k] !== 'boolean') throw bad(`"${k}" must be true or false, got ${JSON.stringify(w[k])}`);
  };
  str('method', (v) => /^[A-Za-z]+$/.test(v), 'an HTTP method such as "POST"');
  str('path', (v) => v.startsWith('/'), 'a path starting with "/"');
  str('content_type', () => true, 'a string');
  int('status', 100, 599);
  int('batch', 0, Number.MAX_SAFE_INTEGER);
  int('session', 0, Number.MAX_SAFE_INTEGER);
  int('after', 0, Number.MAX_SAFE_INTEGER);
  bool('sse');
  bool('auth');
  bool('legacy_sse');
  if (w.headers !== undefined) {
    const h = w.headers;
    if (h === null || typeof h !== 'object' || Array.isArray(h) || Object.values(h).some((v) => typeof v !== 'string')) throw bad('"headers" must be an object of strings');
  }
  if (w.transport === 'http' && (w.method === undefined || w.path === undefined)) throw bad('an http note needs "method" and "path"');
  return w as unknown as WireNote;
}

/**
 * The note of a stored pair: the one the reader attached (from the notes file
 * or an old tape's inline `wire` key), else an inline key of the raw line.
 */
export function wireOf(pair: { wire?: WireNote; raw: string } | string): WireNote | undefined {
  if (typeof pair !== 'string' && pair.wire) return pair.wire;
  const raw = typeof pair === 'string' ? pair : pair.raw;
  if (!raw.includes(`"${WIRE_KEY}"`)) return undefined;
  try {
    const v = (JSON.parse(raw) as Record<string, unknown>)[WIRE_KEY] as WireNote | undefined;
    return v && typeof v === 'object' && (v.transport === 'http' || v.transport === 'unix') ? v : undefined;
  } catch {
    return undefined;
  }
}

/** An old-format line: the pair with its note inline as the last key (read still; written only by tests of that format). */
export function withWire(line: string, wire: WireNote | undefined): string {
  return wire ? `${line.slice(0, -1)},${JSON.stringify(WIRE_KEY)}:${JSON.stringify(wire)}}` : line;
}

/** The text a body-less HTTP request is known by in the notes file and to `serve` (never a tape line). */
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
  for (const p of [path, `${path}.notes`]) {
    try {
      text += read(p);
    } catch {
      /* new or unreadable: nothing numbered there */
    }
  }
  const max = (key: string) => {
    let n = 0;
    for (const m of text.matchAll(new RegExp(`"${key}":(\\d+)`, 'g'))) n = Math.max(n, Number(m[1]));
    return n;
  };
  return { session: max('session'), batch: max('batch') };
}
