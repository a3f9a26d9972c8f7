import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Server } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { type Endpoint, describeEndpoint, listenTcp, listenUnix } from '../../plumbing/net/endpoint.js';
import { LineSplitter } from '../../core/text/lines.js';
import { AgentSession } from './session.js';
import { AGENT_PROTOCOL, type AgentMessage } from './wire.js';
import { tapedeckVersion } from './ops.js';

export interface AgentIO {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

const line = (m: AgentMessage) => `${JSON.stringify(m)}\n`;

/**
 * Answers request lines in order, one at a time (a request's done line is
 * written before the next request is read), until halt or end of input.
 */
export async function serveLines(input: Readable, write: (text: string) => void, session: AgentSession): Promise<void> {
  const lines = new LineSplitter();
  const queue: string[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const onData = (chunk: Buffer) => {
    for (const l of lines.push(chunk)) queue.push(l.toString('utf8'));
    wake?.();
  };
  const onEnd = () => {
    const tail = lines.flush();
    if (tail) queue.push(tail.toString('utf8'));
    ended = true;
    wake?.();
  };
  input.on('data', onData);
  input.once('end', onEnd);
  try {
    for (;;) {
      if (queue.length === 0) {
        if (ended) return;
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
        continue;
      }
      const request = queue.shift()!.trim();
      if (request === '') continue;
      const { halt } = await session.handle(request, (m) => write(line(m)));
      if (halt) return; // seed 000: halt stops reading
    }
  } finally {
    input.off('data', onData);
    input.off('end', onEnd);
  }
}

/**
 * Seed 000's single-shot mode: the whole body is one request; a body of
 * several JSON values runs the first and answers each later one with a
 * `kind:"error"` (ignored). The exit code is the request's.
 */
export async function serveSingleShot(body: string, write: (text: string) => void, io: AgentIO): Promise<number> {
  const session = new AgentSession(io);
  const text = body.trim();
  let first = text;
  let rest: string[] = [];
  try {
    JSON.parse(text);
  } catch {
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    if (lines.length > 1) [first, ...rest] = lines;
  }
  const { exitCode } = await session.handle(first, (m) => write(line(m)));
  for (const r of rest) write(line({ kind: 'error', message: `single-shot reads one request; ignored: ${r.trim().slice(0, 200)}` }));
  return exitCode;
}

/**
 * Seed 000's HTTP transport: POST /v1/agent (one request, a fresh session),
 * POST /v1/agent/batch (NDJSON requests sharing one session), GET
 * /v1/agent/version; with a token, Bearer auth (401 with WWW-Authenticate).
 * Connections are short-lived: each response closes its connection.
 */
export async function listenAgentHttp(listen: Endpoint, io: AgentIO & { authToken?: string; bodyLimit: number }): Promise<{ server: HttpServer; address: string }> {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => void answerHttp(req, res, io));
  server.keepAliveTimeout = 0;
  let address: Endpoint = listen;
  if (listen.kind === 'tcp') address = { ...listen, port: await listenTcp(server, listen.host, listen.port) };
  else await listenUnix(server, listen.path);
  return { server, address: describeEndpoint(address) };
}

async function answerHttp(req: IncomingMessage, res: ServerResponse, io: AgentIO & { authToken?: string; bodyLimit: number }): Promise<void> {
  res.shouldKeepAlive = false; // seed 000: one request, one response stream, connection closed
  const send = (status: number, type: string, body: string, extra: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': type, connection: 'close', ...extra });
    res.end(body);
  };
  const error = (status: number, message: string, extra?: Record<string, string>) => send(status, 'application/json', line({ kind: 'error', message }), extra);
  if (io.authToken !== undefined) {
    const given = /^bearer\s+(.*)$/i.exec(req.headers.authorization ?? '');
    if (!given || given[1].trim() !== io.authToken) return error(401, 'unauthorized', { 'www-authenticate': 'Bearer' });
  }
  const path = (req.url ?? '/').split('?')[0];
  if (req.method === 'GET' && path === '/v1/agent/version') {
    return send(200, 'application/json', `${JSON.stringify({ tapedeck_version: tapedeckVersion(), agent_protocol: AGENT_PROTOCOL })}\n`);
  }
  if (req.method !== 'POST' || (path !== '/v1/agent' && path !== '/v1/agent/batch')) return error(404, `not found: ${req.method} ${path}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > io.bodyLimit) return error(413, `request body over ${io.bodyLimit} bytes`);
    chunks.push(c as Buffer);
  }
  const body = Buffer.concat(chunks).toString('utf8');
  res.writeHead(200, { 'content-type': 'application/x-ndjson', connection: 'close' });
  const session = new AgentSession(io);
  const write = (text: string) => void res.write(text);
  if (path === "/v1/agent") await session.handle(body.trim(), (m) => write(line(m)));
  else {
    for (const l of body.split('\n')) {
      if (l.trim() === '') continue;
      const { halt } = await session.handle(l.trim(), (m) => write(line(m)));
      if (halt) break;
    }
  }
  res.end();
}

/** Seed 000's Unix transport: the stdio wire format per connection, each its own session until halt or EOF. */
export async function listenAgentUnix(path: string, io: AgentIO): Promise<Server> {
  const { createServer } = await import('node:net');
  const server = createServer((socket) => {
    socket.on('error', () => {});
    void serveLines(socket, (t) => void socket.write(t), new AgentSession(io)).then(() => socket.end());
  });
  await listenUnix(server, path);
  return server;
}

/** Readable and writable the CLI hands in. */
export type Streams = { input: Readable; output: Writable };
