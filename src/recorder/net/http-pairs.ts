import type { IncomingHttpHeaders } from 'node:http';
import { trimWhiteSpace } from '../../core/text/trim.js';
import { splitAtDone } from '../../plumbing/net/http-wire.js';
import { isBatchPath, methodPathRequest, type WireNote } from '../../tape/protocol/wire.js';

/** One HTTP request and its whole response, as the recording proxy saw them. */
export interface HttpExchange {
  method: string;
  path: string;
  requestBody: string;
  requestHeaders: IncomingHttpHeaders;
  status: number;
  contentType?: string;
  /** The response was SSE: `response` is each event's data, one line per event. */
  sse: boolean;
  response: string;
  session?: number;
  /** A GET stream: how many pairs of its session had completed when it was opened. */
  after?: number;
  /** Its place in the tape: the order the requests started (a GET stream takes its place when it ends). */
  seq?: number;
  /** Stands for the exchange (the one its SSE events were reported with). */
  stream?: object;
}

export interface RecordedPair {
  request: string;
  response: string;
  wire: WireNote;
  /** Not an agent request (no body, or the transport's 401): kept in the tape's notes only, never as a tape line. */
  notesOnly?: boolean;
}

/** Request headers that change what a server answers; nothing that identifies or authorises. */
const KEPT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'last-event-id'];

/**
 * Seed 000's recording rules over HTTP: a POST body is the request as-is
 * (trimmed); a POST /v1/agent/batch body gives one pair per line, the
 * interleaved response cut at each done line; a body-less request (GET
 * /v1/agent/version, MCP's GET stream and DELETE) is recorded as its method
 * and path. `nextBatch` numbers batches so replay sends them as one body again.
 */
export function pairsOf(ex: HttpExchange, nextBatch: () => number): RecordedPair[] {
  const headers: Record<string, string> = {};
  for (const k of KEPT_HEADERS) {
    const v = ex.requestHeaders[k];
    if (typeof v === 'string' && !(k === 'accept' && v === '*/*')) headers[k] = v;
  }
  const wire: WireNote = { transport: 'http', method: ex.method, path: ex.path, status: ex.status };
  if (ex.contentType) wire.content_type = ex.contentType;
  if (ex.sse) wire.sse = true;
  if (ex.session !== undefined) wire.session = ex.session;
  if (ex.after !== undefined && ex.sse) wire.after = ex.after;
  if (ex.requestHeaders.authorization !== undefined) wire.auth = true;
  if (Object.keys(headers).length > 0) wire.headers = headers;

  const body = trimWhiteSpace(ex.requestBody); // as seed 000 trims (a leading BOM stays)
  if (body === '') return [{ request: methodPathRequest(ex.method, ex.path), response: ex.response, wire, notesOnly: true }];
  if (ex.status === 401) return [{ request: body, response: ex.response, wire, notesOnly: true }];
  const lines = body.split('\n').map((l) => trimWhiteSpace(l)).filter((l) => l !== '');
  if (isBatchPath(ex.path) && lines.length > 1) {
    const parts = splitAtDone(ex.response, lines.length);
    // Fewer done lines than requests (an error status, a cut stream): keep the body whole.
    if (parts.length === lines.length) {
      const batch = nextBatch();
      return lines.map((line, i) => ({ request: line, response: parts[i], wire: { ...wire, batch } }));
    }
  }
  return [{ request: body, response: ex.response, wire }];
}
