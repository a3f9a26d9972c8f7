import type { Endpoint } from '../../plumbing/net/endpoint.js';
import { splitAtDone } from '../../plumbing/net/http-wire.js';
import type { WireNote } from '../../tape/protocol/wire.js';
import { type LiveOutcome, type OpenStream, type WirePair, httpCall, isFailure, openHttp } from './http-client.js';

export type { LiveOutcome, WirePair } from './http-client.js';
import { LegacySseSession } from './drive-sse.js';

export interface DriveOptions {
  timeoutMs: number;
  /** Sent as `Authorization: Bearer` on the pairs that were recorded with a token. */
  authToken?: string;
  /** The server's own requests (MCP sampling, elicitation, roots) answered from the tape (replayer/protocol/tape-answers.ts). */
  answers?: ServerRequestAnswers;
  /** For a pair holding the client's answer to a server request: the pair whose response carried that request. */
  carrierOf?: (pair: number) => number | undefined;
  /** Pairs whose call a later client notification cancelled (notifications/cancelled). */
  cancelled?: { has(pair: number): boolean };
}

export interface ServerRequestAnswers {
  isAnswer(pair: number): boolean;
  /** For a live server message: the answer to send back (with the live id), and its pair if from the tape. */
  answer(line: string): { text: string; pair?: number } | undefined;
  readonly sent: { has(pair: number): boolean; add(pair: number): void };
}

/** How a pair recorded without a wire note (a stdio tape) goes over HTTP: seed 000's endpoints. */
function noteFor(p: WirePair): WireNote {
  if (p.wire) return p.wire;
  const m = /^(GET|DELETE|HEAD|OPTIONS) (\/\S*)$/.exec(p.send);
  return m ? { transport: 'http', method: m[1], path: m[2] } : { transport: 'http', method: 'POST', path: '/v1/agent' };
}

/**
 * Sends each request as it was recorded and reads each response to its end,
 * one at a time in tape order: a seed-000 batch as one body again, split at
 * its done lines; MCP requests with the live Mcp-Session-Id that stands for
 * the recorded one; MCP's GET stream opened as soon as its session exists
 * and closed at its place in the tape. A request the server makes of the
 * client on an SSE stream (a pending call's, or the GET stream) is answered
 * when it arrives, matched by method and params, with the recorded answer
 * POSTed under the live id; that answer's pair is held until then.
 */
export async function driveHttp(pairs: readonly WirePair[], to: Endpoint, options: DriveOptions): Promise<{ outcomes: LiveOutcome[]; stoppedAt: number }> {
  const outcomes: LiveOutcome[] = [];
  const sessionIds = new Map<number, string>();
  const streams = new Map<number, OpenStream>();
  const headersFor = (w: WireNote): Record<string, string> => {
    const h: Record<string, string> = { ...(w.headers ?? {}) };
    if (w.auth && options.authToken !== undefined) h.authorization = `Bearer ${options.authToken}`;
    if (w.session !== undefined && sessionIds.has(w.session)) h['mcp-session-id'] = sessionIds.get(w.session)!;
    return h;
  };
  // Pairs of the GET stream, by session: opened early so no server message is missed.
  const streamPairs = new Map<number, WireNote>();
  const completed = new Map<number, number>();
  // Keyed by session number; 0 for a server without sessions.
  for (const p of pairs) if (p.wire?.method === 'GET' && p.wire.sse) streamPairs.set(p.wire.session ?? 0, p.wire);

  // MCP's legacy HTTP+SSE sessions: the GET stream's pair by session, the POST path, the open sessions.
  const legacyStreams = new Map<number, WireNote>();
  const legacyPosts = new Map<number, string>();
  for (const p of pairs) {
    if (!p.wire?.legacy_sse) continue;
    if (p.wire.method === 'GET') legacyStreams.set(p.wire.session ?? 0, p.wire);
    else legacyPosts.set(p.wire.session ?? 0, p.wire.path ?? '/');
  }
  const legacySessions = new Map<number, LegacySseSession>();
  /** Per legacy session, the messages its stream carried in the recording through the pair being replayed. */
  const legacyLines = new Map<number, number>();

  const answers = options.answers;
  /** Answer pairs POSTed because the live server asked, by pair. */
  const given = new Map<number, Promise<LiveOutcome>>();
  let onGiven: (pair: number) => void = () => {};
  const onMessage = (via: WireNote) => (data: string) => {
    if (!answers || !data.includes('"method"') || !data.includes('"id"')) return;
    const reply = answers.answer(data);
    if (!reply) return;
    // The recorded answer goes the way it went; an answer the tape lacks (an error) the way the stream's session speaks.
    const w = reply.pair !== undefined ? noteFor(pairs[reply.pair]) : { ...via, method: 'POST', headers: { ...via.headers, accept: 'application/json, text/event-stream', 'content-type': 'application/json' } };
    const legacy = w.legacy_sse ? legacySessions.get(w.session ?? 0) : undefined;
    const path = legacy ? (reply.pair !== undefined ? legacy.livePath(w.path ?? '/') : legacy.livePath(legacyPosts.get(w.session ?? 0) ?? '/')) : (w.path ?? '/');
    // Over legacy SSE the POST's own answer is only "Accepted": the pair's response is what the stream carried for it (nothing).
    const call = httpCall(to, { method: 'POST', path, headers: headersFor(w), body: reply.text }, options.timeoutMs)
      .then(outcomeOf)
      .then((o) => (legacy && !o.failure ? { ...o, actual: '' } : o));
    if (reply.pair === undefined) return;
    given.set(reply.pair, call);
    onGiven(reply.pair);
  };
  const open = (w: WireNote) => {
    const stream = openHttp(to, { method: 'GET', path: w.path ?? '/', headers: headersFor(w) });
    stream.onEvent(onMessage(w));
    return stream;
  };
  /** A held answer: until the live server asks (bounded), or at once when it no longer can. */
  const asked = (pair: number): Promise<LiveOutcome | undefined> | undefined => {
    if (given.has(pair)) return given.get(pair);
    const carrier = options.carrierOf?.(pair);
    // A call's own SSE stream (Streamable HTTP) carried the request: once that call is over (or, in a tape
    // recorded before pairs kept their order, still to come), it is asked then or never. A GET stream or a
    // legacy SSE session can ask at any time: wait.
    const via = carrier === undefined ? undefined : noteFor(pairs[carrier]);
    const ownStream = via !== undefined && via.method === 'POST' && via.sse === true && !via.legacy_sse;
    if (carrier !== undefined && ownStream && (carrier > pair || outcomes[carrier] !== undefined)) return undefined;
    return new Promise<LiveOutcome | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), options.timeoutMs);
      onGiven = (p) => {
        if (p !== pair) return;
        clearTimeout(timer);
        resolve(given.get(pair));
      };
    }).finally(() => (onGiven = () => {}));
  };

  /** Cancelled calls still open, ended once the cancel has gone. */
  const abandoned: Array<{ pair: number; stream: OpenStream; status: number }> = [];
  const endAbandoned = async () => {
    for (const c of abandoned.splice(0)) {
      c.stream.abort();
      const answer = await c.stream.done;
      outcomes[c.pair] = { actual: isFailure(answer) ? answer.partial : answer.body, status: c.status };
    }
  };

  const release = () => {
    for (const s of streams.values()) s.abort();
    for (const s of legacySessions.values()) s.close();
    for (const c of abandoned.splice(0)) c.stream.abort();
  };
  try {
    return await loop();
  } finally {
    release(); // a stop leaves nothing open (a running server given with --url keeps no stream of ours)
  }

  async function loop(): Promise<{ outcomes: LiveOutcome[]; stoppedAt: number }> {
    let i = 0;
    while (i < pairs.length) {
      if (answers && (given.has(i) || answers.isAnswer(i))) {
        const out = await asked(i);
        if (out) outcomes[i] = out;
        // Never asked: the carrying pair reports the request missing. One whose call is still to come
      // (a tape recorded before pairs kept their order) stays available for it.
      else if (!given.has(i) && !((options.carrierOf?.(i) ?? -1) > i)) answers.sent.add(i);
        if (outcomes[i]?.failure) return { outcomes, stoppedAt: i };
        i++;
        continue;
      }
      const w = noteFor(pairs[i]);
      const key = w.session ?? 0;
      if (w.legacy_sse) {
        let session = legacySessions.get(key);
        if (!session) {
          session = new LegacySseSession(to, options.timeoutMs, onMessage(w));
          legacySessions.set(key, session);
          const sw = legacyStreams.get(key) ?? w;
          const failed = await session.open(sw.path ?? '/sse', headersFor(sw));
          if (failed) {
            outcomes[i] = failed;
            return { outcomes, stoppedAt: i };
          }
        }
        if (w.method === 'GET') {
          session.close();
          legacySessions.delete(key);
          outcomes[i] = { actual: session.endpointText(), status: 200 };
        } else {
          // The stream's recorded message total through this pair: a cancelled call also ends once the live
          // stream reaches it (a server request on a timer may come a call earlier than it was recorded).
          const through = (legacyLines.get(key) ?? 0) + countLines(pairs[i].expected);
          legacyLines.set(key, through);
          const cancelled = options.cancelled?.has(i) === true;
          outcomes[i] = await session.call(pairs[i], w.path ?? '/', headersFor(w), cancelled ? { endAfterLines: beforeCancel(pairs[i]), endAfterTotal: through } : undefined);
          if (outcomes[i].failure) return { outcomes, stoppedAt: i };
        }
        i++;
        continue;
      }
      if (w.method === 'GET' && w.sse) {
        const stream = streams.get(key) ?? open(w);
        streams.set(key, stream);
        outcomes[i] = await closeStream(stream, countLines(pairs[i].expected), options.timeoutMs);
        completed.set(key, (completed.get(key) ?? 0) + 1);
        i++;
        continue;
      }
      if (options.cancelled?.has(i) && w.method === 'POST' && w.batch === undefined) {
        // A call the client cancelled: as much as was recorded before the cancel, then the next pairs
        // go while it is open; it ends where the recording's client gave up on it (once the cancel went).
        const stream = openHttp(to, { method: 'POST', path: w.path ?? '/', headers: headersFor(w), body: pairs[i].send });
        stream.onEvent(onMessage(w));
        const head = await stream.headers;
        if (isFailure(head)) {
          outcomes[i] = { actual: head.partial, failure: head };
          return { outcomes, stoppedAt: i };
        }
        await untilEvents(stream, beforeCancel(pairs[i]), options.timeoutMs);
        abandoned.push({ pair: i, stream, status: head.status });
        i++;
        continue;
      }
      let end = i + 1;
      if (w.batch !== undefined) while (end < pairs.length && pairs[end].wire?.batch === w.batch) end++;
      const group = pairs.slice(i, end);
      const body = w.method === 'GET' || w.method === 'DELETE' || w.method === 'HEAD' ? undefined : group.length > 1 ? `${group.map((p) => p.send).join('\n')}\n` : group[0].send;
      const answer = await httpCall(to, { method: w.method ?? 'POST', path: w.path ?? '/v1/agent', headers: headersFor(w), body }, options.timeoutMs, w.sse ? onMessage(w) : undefined);
      if (isFailure(answer)) {
        outcomes[i] = { actual: answer.partial, failure: answer };
        return { outcomes, stoppedAt: i };
      }
      const liveSession = answer.headers['mcp-session-id'];
      if (typeof liveSession === 'string' && w.session !== undefined && !sessionIds.has(w.session)) sessionIds.set(w.session, liveSession);
      const n = (completed.get(key) ?? 0) + group.length;
      completed.set(key, n);
      // The GET stream opens where the recording opened it: after as many pairs of its session.
      const sw = streamPairs.get(key);
      if (sw && !streams.has(key) && (w.session === undefined || sessionIds.has(w.session)) && n >= (sw.after ?? 0)) streams.set(key, open(sw));
      const parts = group.length > 1 ? splitAtDone(answer.body, group.length) : [answer.body];
      group.forEach((_p, k) => (outcomes[i + k] = { actual: parts[k] ?? '', status: answer.status }));
      if (abandoned.length > 0 && group.some((p) => p.send.includes('cancel'))) await endAbandoned();
      i = end;
    }
    await endAbandoned();
    // Answers given after their place in the tape was passed (a tape whose answer came before its call).
    for (const [pair, out] of given) if (outcomes[pair] === undefined) outcomes[pair] = await out;
    return { outcomes, stoppedAt: pairs.length };
  }
}

function outcomeOf(a: Awaited<ReturnType<typeof httpCall>>): LiveOutcome {
  return isFailure(a) ? { actual: a.partial, failure: a } : { actual: a.body, status: a.status };
}

function countLines(text: string): number {
  return text.split('\n').filter((l) => l !== '').length;
}

/** How many messages a cancelled call had before its cancel: all it recorded but its own (error) answer. */
function beforeCancel(p: WirePair): number {
  let id: unknown;
  try {
    id = (JSON.parse(p.send) as { id?: unknown }).id;
  } catch {
    return countLines(p.expected);
  }
  const lines = p.expected.split('\n').filter((l) => l !== '');
  const own = lines.filter((l) => l.includes('"id"') && !l.includes('"method"') && safeId(l) === JSON.stringify(id));
  return lines.length - own.length;
}

function safeId(line: string): string | undefined {
  try {
    return JSON.stringify((JSON.parse(line) as { id?: unknown }).id);
  } catch {
    return undefined;
  }
}

/** Waits (bounded) for as many messages as were recorded on the stream, then ends it. */
async function closeStream(stream: OpenStream, expected: number, timeoutMs: number): Promise<LiveOutcome> {
  const head = await stream.headers;
  if (isFailure(head)) return { actual: head.partial, failure: head };
  await untilEvents(stream, expected, timeoutMs);
  stream.abort();
  const answer = await stream.done;
  return isFailure(answer) ? { actual: answer.partial, status: head.status } : { actual: answer.body, status: head.status };
}

/** Until the stream has had `expected` messages or ended (bounded by the timeout). */
async function untilEvents(stream: OpenStream, expected: number, timeoutMs: number): Promise<void> {
  if (stream.events() < expected) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      stream.onEvent(() => {
        if (stream.events() >= expected) {
          clearTimeout(timer);
          resolve();
        }
      });
      void stream.done.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
