import { readFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { DEFAULT_BODY_LIMIT, SseParser, bearerToken, endToEndHeaders, isSse, refuseBody } from '../core/http-wire.js';
import { type Endpoint, describeEndpoint, listenTcp, listenUnix } from '../core/endpoint.js';
import { redact } from '../core/redact.js';
import { AUTH_TOKEN_VAR, lastNumbers } from '../tape/wire.js';
import { type HttpExchange, pairsOf } from './http-pairs.js';
import { TapeAppender } from './tape-writer.js';


export interface HttpRecorderOptions {
  /** Where clients connect (loopback by default, chosen by the caller). */
  listen: Endpoint;
  upstream: Endpoint & { base?: string };
  out: string;
  redactEnv?: readonly string[];
  bodyLimit?: number;
  env?: NodeJS.ProcessEnv;
  report?: (message: string) => void;
}

export interface RecorderHandle {
  /** The address clients use (the real port when 0 was asked for). */
  address: Endpoint;
  /** Stops listening, ends open streams (their pairs written) and closes the tape. */
  close(): Promise<{ pairsWritten: number; pairsNotWritten: number }>;
}

/**
 * A transparent HTTP recording proxy: each request goes upstream unchanged
 * (bearer token included), each response comes back as it streams, and on
 * the side the exchange becomes seed-000 pairs in the tape. Tokens are passed
 * through, never written: headers are not recorded, and a token that shows up
 * in a body is stored as a placeholder.
 */
export async function startHttpRecorder(options: HttpRecorderOptions): Promise<RecorderHandle> {
  const report = options.report ?? ((m: string) => process.stderr.write(m));
  const tape = new TapeAppender(options.out, report);
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const env = options.env ?? process.env;
  const agent = new Agent({ keepAlive: true });
  const sessions = new Map<string, number>();
  const before = lastNumbers(options.out, (p) => readFileSync(p, 'utf8'));
  /** Pairs completed per MCP session (0: none), so replay opens a GET stream at the same point. */
  const completed = new Map<number, number>();
  let batches = before.batch;
  const open = new Set<() => void>();
  const up = options.upstream;

  const sessionOf = (id: string | string[] | undefined): number | undefined => {
    if (typeof id !== 'string') return undefined;
    if (!sessions.has(id)) sessions.set(id, before.session + sessions.size + 1);
    return sessions.get(id);
  };

  const record = (ex: HttpExchange, token: string | undefined) => {
    const names = [...(options.redactEnv ?? [])];
    let redactWith = env;
    if (token) {
      names.push(AUTH_TOKEN_VAR);
      redactWith = { ...env, [AUTH_TOKEN_VAR]: token };
    }
    completed.set(ex.session ?? 0, (completed.get(ex.session ?? 0) ?? 0) + 1);
    const pairs = pairsOf(ex, () => ++batches);
    // Written just after the response has gone out, off the round trip; setImmediate keeps the order.
    setImmediate(() => {
      for (const p of pairs) {
        if (names.length === 0) tape.append(p.request, p.response, p.wire);
        else tape.append(redact(p.request, names, redactWith), redact(p.response, names, redactWith), p.wire);
      }
    });
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) return refuseBody(req, res, limit);
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const session = sessionOf(req.headers['mcp-session-id']);
    const after = method === 'GET' ? (completed.get(session ?? 0) ?? 0) : undefined;
    const headers = endToEndHeaders(req.headers);
    if (up.kind === 'tcp') headers.host = `${up.host}:${up.port}`;
    // The body streams upstream as it arrives (the connection upstream opens meanwhile) and is kept, bounded, for the tape.
    const bodyChunks: Buffer[] = [];
    let bodySize = 0;
    let tooLarge = false;
    const target = up.kind === 'unix' ? { socketPath: up.path } : { host: up.host, port: up.port, agent };
    const upstreamReq = httpRequest({ ...target, method, path: `${up.kind === 'tcp' ? (up.base ?? '') : ''}${path}`, headers }, (ur) => {
      const contentType = ur.headers['content-type'];
      const sse = isSse(contentType);
      const resHeaders = endToEndHeaders(ur.headers);
      if (ur.headers.connection === 'close') resHeaders.connection = 'close';
      res.writeHead(ur.statusCode ?? 502, ur.statusMessage, resHeaders);
      // A GET stream may stay silent for long; its client needs the headers now. Others go out with their first bytes.
      if (sse && method === 'GET') res.flushHeaders();
      const chunks: Buffer[] = [];
      const parser = sse ? new SseParser() : undefined;
      const messages: string[] = [];
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        open.delete(abort);
        const raw = Buffer.concat(chunks);
        record(
          {
            method,
            path,
            requestBody: Buffer.concat(bodyChunks).toString('utf8'),
            requestHeaders: req.headers,
            status: ur.statusCode ?? 0,
            contentType,
            sse,
            response: sse ? messages.map((m) => `${m}\n`).join('') : isUtf8(raw) ? raw.toString('utf8') : raw.toString('latin1'),
            session: session ?? sessionOf(ur.headers['mcp-session-id']),
            after,
          },
          bearerToken(req.headers),
        );
      };
      // A client that hangs up (an SSE stream it no longer wants) ends the exchange with what came.
      const abort = () => {
        ur.destroy();
        finish();
      };
      open.add(abort);
      ur.on('data', (c: Buffer) => {
        res.write(c);
        if (parser) for (const e of parser.push(c)) messages.push(e.data);
        else chunks.push(c);
      });
      ur.once('end', () => {
        res.end();
        finish();
      });
      ur.once('error', () => {
        res.destroy();
        finish();
      });
      res.once('close', () => {
        if (!done) abort();
      });
    });
    upstreamReq.once('error', (err) => {
      if (tooLarge) return;
      if (res.headersSent) return void res.destroy();
      report(`tapedeck record: upstream ${describeEndpoint(up)} failed: ${err.message}\n`);
      res.writeHead(502, { 'Content-Type': 'application/json' });
      res.end(`${JSON.stringify({ kind: 'error', message: `tapedeck: upstream unreachable: ${err.message}` })}\n`);
    });
    req.on('data', (c: Buffer) => {
      if (tooLarge) return;
      bodySize += c.length;
      if (bodySize > limit) {
        tooLarge = true;
        upstreamReq.destroy();
        bodyChunks.length = 0;
        return refuseBody(req, res, limit);
      }
      bodyChunks.push(c);
      upstreamReq.write(c);
    });
    req.once('end', () => {
      if (!tooLarge) upstreamReq.end();
    });
  };

  const server = createServer(handle);
  server.keepAliveTimeout = 5000;
  let address: Endpoint;
  if (options.listen.kind === 'unix') {
    await listenUnix(server, options.listen.path);
    address = options.listen;
  } else {
    const { host, port } = options.listen;
    address = { kind: 'tcp', host, port: await listenTcp(server, host, port) };
  }
  return {
    address,
    close: async () => {
      for (const abort of [...open]) abort();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      agent.destroy();
      await new Promise((resolve) => setImmediate(resolve)); // after the writes queued above
      tape.close();
      return { pairsWritten: tape.written, pairsNotWritten: tape.failed };
    },
  };
}
