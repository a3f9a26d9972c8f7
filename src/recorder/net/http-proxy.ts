import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { DEFAULT_BODY_LIMIT, bearerToken } from '../../plumbing/net/http-wire.js';
import { type Endpoint, listenTcp, listenUnix } from '../../plumbing/net/endpoint.js';
import { redact } from '../../core/text/redact.js';
import { AUTH_TOKEN_VAR, lastNumbers } from '../../tape/protocol/wire.js';
import { type HttpExchange, pairsOf, type RecordedPair } from './http-pairs.js';
import { LegacySseRecorder } from './legacy-sse.js';
import { relayConnection } from './http-relay.js';
import { TapeAppender } from '../stdio/tape-writer.js';


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
 * A transparent HTTP recording proxy: a byte relay per connection (see
 * net/http-relay.ts), so each request goes upstream unchanged (bearer token
 * included) and each response comes back as it streams, and on the side the
 * exchange becomes seed-000 pairs in the tape. Tokens are passed
 * through, never written: headers are not recorded, and a token that shows up
 * in a body is stored as a placeholder.
 */
export async function startHttpRecorder(options: HttpRecorderOptions): Promise<RecorderHandle> {
  const report = options.report ?? ((m: string) => process.stderr.write(m));
  const tape = new TapeAppender(options.out, report);
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const env = options.env ?? process.env;
  const sessions = new Map<string, number>();
  const before = lastNumbers(options.out, (p) => readFileSync(p, 'utf8'));
  /** Pairs completed per MCP session (0: none), so replay opens a GET stream at the same point. */
  const completed = new Map<number, number>();
  let batches = before.batch;
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
    const hide = names.length === 0 ? (t: string) => t : (t: string) => redact(t, names, redactWith);
    completed.set(ex.session ?? 0, (completed.get(ex.session ?? 0) ?? 0) + 1);
    const pairs = pairsOf(ex, () => ++batches);
    if (legacy.owns(ex.seq)) return legacy.answered(ex.seq!, pairs[0].wire, hide); // its answer came on the GET stream
    const own = ex.stream && ex.sse && ex.method === 'GET' ? legacy.endStream(ex.stream, pairs[0]) : undefined;
    order.done(ex.seq, () => {
      for (const p of own ? [own] : pairs) writePair(p, hide);
    });
  };
  const writePair = (p: RecordedPair, hide: (t: string) => string) => tape.append(hide(p.request), hide(p.response), p.wire, p.notesOnly);
  const legacy = new LegacySseRecorder(
    (seq, pair, hide) => order.done(seq, () => writePair(pair, hide)),
    (reason) => setImmediate(() => tape.giveUp(reason)),
    () => (address?.kind === 'tcp' ? `${address.host}:${address.port}` : undefined),
  );

  const order = new StartOrder();
  let address: Endpoint | undefined;
  const connections = new Set<() => void>();
  const server = createServer({ allowHalfOpen: true }, (client) => {
    const end = relayConnection(client, {
      upstream: up,
      limit,
      report,
      sessionOf,
      onRequest: (headers, method) => {
        const session = sessionOf(headers['mcp-session-id']);
        // A GET stream (open for the whole session) takes its place in the tape when it ends.
        return method === 'GET' ? { session, after: completed.get(session ?? 0) ?? 0 } : { session, seq: order.take() };
      },
      abandon: (seq) => order.done(seq, () => {}),
      record: (ex) => record(ex, bearerToken(ex.requestHeaders)),
      requestBody: (path, seq, body) => legacy.request(path, seq, body),
      sseEvent: (stream, event, data, first) => legacy.event(stream, event, data, first, (id) => sessionOf(id)!),
      giveUp: (reason) => setImmediate(() => tape.giveUp(reason)), // after the pairs already written in order (their drain is queued first)
    });
    connections.add(end);
    client.once('close', () => connections.delete(end));
  });
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
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Open exchanges (a GET stream, say) are recorded with what they had.
      for (const end of [...connections]) end();
      await closed;
      legacy.close();
      order.flush();
      await new Promise((resolve) => setImmediate(resolve)); // after the writes queued above
      tape.close();
      return { pairsWritten: tape.written, pairsNotWritten: tape.failed };
    },
  };
}

/**
 * Pairs in the order the exchange happened: a request's pair is written once
 * every request that started before it has ended, so the client's answer to
 * a server request (MCP sampling: a POST answered 202) comes after the call
 * whose stream carried that request, as over stdio. Written just after the
 * response has gone out, off the round trip (setImmediate keeps the order).
 */
class StartOrder {
  private next = 0;
  private writeAt = 0;
  private readonly ready = new Map<number, () => void>();
  private scheduled = false;

  take(): number {
    return this.next++;
  }

  /** The exchange at `seq` ended (undefined: one without a place, written in turn now). */
  done(seq: number | undefined, write: () => void): void {
    this.ready.set(seq ?? this.take(), write);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  private drain(): void {
    for (let w = this.ready.get(this.writeAt); w; w = this.ready.get(this.writeAt)) {
      this.ready.delete(this.writeAt++);
      w();
    }
  }

  /** Closing: what is left goes in order, whatever never ended. */
  flush(): void {
    this.drain();
    for (const seq of [...this.ready.keys()].sort((a, b) => a - b)) this.ready.get(seq)!();
    this.ready.clear();
  }
}
