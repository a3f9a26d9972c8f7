import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { classifyRpc } from '../../core/framing/boundary.js';
import { type Endpoint, listenTcp, listenUnix } from '../../plumbing/net/endpoint.js';
import { type Pace, writePaced } from '../pace.js';
import { BodyTooLarge, DEFAULT_BODY_LIMIT, bearerToken, readBody, refuseBody, sseEvent } from '../../plumbing/net/http-wire.js';
import { SESSION_PLACEHOLDER, isBatchPath, methodPathRequest, type WireNote } from '../../tape/protocol/wire.js';
import { splitMessages } from '../protocol/compare.js';
import { type Match, TapeMatcher, unmatchedReply } from './match.js';

export interface HttpServeOptions {
  /** How an SSE response's events go out (default recorded: one at a time). */
  pace?: Pace;
  listen: Endpoint;
  /** Every request must carry `Authorization: Bearer <token>` (seed 000's 401 otherwise). */
  authToken?: string;
  bodyLimit?: number;
  /** Told the real address once listening. */
  onListening?: (address: Endpoint) => void;
  /** Each request that matched nothing. */
  onUnmatched: (request: string) => void;
}

/**
 * The stand-in server over HTTP: seed 000's endpoints (POST /v1/agent,
 * POST /v1/agent/batch line by line, GET /v1/agent/version) and MCP's
 * Streamable HTTP (a JSON or SSE answer as recorded, an Mcp-Session-Id per
 * recorded session, the GET stream with its recorded messages, DELETE) and
 * its legacy HTTP+SSE transport (GET /sse naming a POST endpoint with a fresh
 * session id; each POST answered 202 and its recorded answer sent on the
 * stream), answered from the tape by the matcher every transport shares.
 */
export async function listenHttp(matcher: TapeMatcher, options: HttpServeOptions): Promise<{ address: Endpoint; server: Server }> {
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const liveSessions = new Map<number, string>();
  const send = (res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}) => {
    res.writeHead(status, { 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), ...extra });
    res.end(body);
  };

  /** Status, content type and session header the recorded pair had. */
  const headersOf = (w: WireNote | undefined, fallbackType: string): { status: number; type: string; extra: Record<string, string> } => {
    const extra: Record<string, string> = {};
    if (w?.session !== undefined) {
      if (!liveSessions.has(w.session)) liveSessions.set(w.session, randomUUID());
      extra['Mcp-Session-Id'] = liveSessions.get(w.session)!;
    }
    return { status: w?.status ?? 200, type: w?.content_type ?? fallbackType, extra };
  };

  /** Legacy HTTP+SSE sessions (2024-11-05): live session id → the GET stream its answers go on. */
  const legacy = new Map<string, ServerResponse>();
  const openLegacy = (res: ServerResponse, hit: Match) => {
    const liveId = randomUUID();
    res.writeHead(hit.wire?.status ?? 200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    const endpoint = (hit.response.split('\n')[0] || `/message?sessionId=${SESSION_PLACEHOLDER}`).split(SESSION_PLACEHOLDER).join(liveId);
    res.write(`event: endpoint\ndata: ${endpoint}\n\n`);
    legacy.set(liveId, res);
    res.once('close', () => legacy.delete(liveId));
  };
  /** A POST of a legacy session: 202 at once, the recorded answer's messages on the session's stream. */
  const answerLegacy = (stream: ServerResponse, res: ServerResponse, body: string, hit: Match | undefined) => {
    send(res, 202, 'text/plain', 'Accepted');
    const text = hit ? hit.response : classifyRpc(body).type === 'request' ? unmatchedReply(body) : '';
    const events = splitMessages(text).map((m) => sseEvent(m.replace(/\n$/, '')));
    void writePaced(events, (part, done) => stream.write(part, () => done()), options.pace ?? 'recorded');
  };

  const answerOne = (res: ServerResponse, hit: Match, fallbackType: string, keepOpen: boolean) => {
    if (hit.wire?.legacy_sse && hit.wire.method === 'GET') return openLegacy(res, hit);
    const { status, type, extra } = headersOf(hit.wire, fallbackType);
    if (!hit.wire?.sse) return send(res, status, type, hit.bytes, extra);
    res.writeHead(status, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', ...extra });
    res.flushHeaders();
    const events = splitMessages(hit.response).map((m) => sseEvent(m.replace(/\n$/, '')));
    void writePaced(events, (part, done) => res.write(part, () => done()), options.pace ?? 'recorded').then(() => {
      if (!keepOpen) res.end(); // a GET stream stays open until the client leaves, as a live one would
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (options.authToken !== undefined && bearerToken(req.headers) !== options.authToken) {
      return send(res, 401, 'application/json', `${JSON.stringify({ kind: 'error', message: 'unauthorized' })}\n`, { 'WWW-Authenticate': 'Bearer' });
    }
    let body: string;
    try {
      body = (await readBody(req, limit)).toString('utf8').trim();
    } catch (err) {
      if (err instanceof BodyTooLarge) return refuseBody(req, res, limit);
      return send(res, 400, 'application/json', `${JSON.stringify({ kind: 'error', message: 'bad request body' })}\n`, { Connection: 'close' });
    }
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0];
    const authorised = bearerToken(req.headers) !== undefined;
    const prefer = (w: WireNote | undefined) => !w || !!w.auth === authorised;
    if (body === '') {
      const request = methodPathRequest(method, path);
      const hit = matcher.match(request, prefer);
      if (hit) return answerOne(res, hit, 'application/json', method === 'GET');
      options.onUnmatched(request);
      // MCP clients take 405 on the GET stream as "this server has none".
      if (method === 'GET' && /text\/event-stream/.test(req.headers.accept ?? '')) return send(res, 405, 'application/json', '', { Allow: 'POST' });
      return send(res, 404, 'application/json', `${JSON.stringify({ kind: 'error', message: `tapedeck serve: nothing recorded for ${request}` })}\n`);
    }
    if (isBatchPath(path) && body.includes('\n')) {
      const out: Buffer[] = [];
      for (const line of body.split('\n').map((l) => l.trim()).filter((l) => l !== '')) {
        const hit = matcher.match(line, prefer);
        if (hit) out.push(hit.bytes);
        else {
          options.onUnmatched(line);
          out.push(Buffer.from(unmatchedReply(line)));
        }
      }
      return send(res, 200, 'application/x-ndjson', Buffer.concat(out));
    }
    const stream = legacy.get(new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('sessionId') ?? '');
    if (stream) {
      const hit = matcher.match(body, prefer);
      if (!hit) options.onUnmatched(body);
      return answerLegacy(stream, res, body, hit);
    }
    const rpc = classifyRpc(body);
    const isRpc = rpc.type !== 'other';
    const hit = matcher.match(body, prefer);
    if (hit) return answerOne(res, hit, isRpc ? 'application/json' : 'application/x-ndjson', false);
    options.onUnmatched(body);
    if (rpc.type === 'notification' || rpc.type === 'response') return send(res, 202, 'application/json', '');
    const reply = unmatchedReply(body);
    send(res, 200, isRpc ? 'application/json' : 'application/x-ndjson', isRpc ? reply.trimEnd() : reply);
  };

  // Seed 000: connections are short-lived, one request, one response, connection closed.
  const server = createServer((req, res) => {
    res.shouldKeepAlive = false;
    void handle(req, res);
  });
  if (options.listen.kind === 'unix') {
    await listenUnix(server, options.listen.path);
    return { address: options.listen, server };
  }
  const { host, port } = options.listen;
  return { address: { kind: 'tcp', host, port: await listenTcp(server, host, port) }, server };
}
