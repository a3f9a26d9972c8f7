import type { Endpoint } from '../../plumbing/net/endpoint.js';
import { splitAtDone } from '../../plumbing/net/http-wire.js';
import type { WireNote } from '../../tape/protocol/wire.js';
import { type CallFailure, type OpenStream, httpCall, isFailure, openHttp } from './http-client.js';

/** A pair as the transport drivers send it: secrets restored, its wire note read. */
export interface WirePair {
  send: string;
  expected: string;
  wire?: WireNote;
}

export interface LiveOutcome {
  actual: string;
  status?: number;
  /** Why no complete response came; the replay stops there. */
  failure?: CallFailure | { failure: 'exited'; message: string; partial: string };
}

export interface DriveOptions {
  timeoutMs: number;
  /** Sent as `Authorization: Bearer` on the pairs that were recorded with a token. */
  authToken?: string;
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
 * and closed at its place in the tape.
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

  let i = 0;
  while (i < pairs.length) {
    const w = noteFor(pairs[i]);
    const key = w.session ?? 0;
    if (w.method === 'GET' && w.sse) {
      const stream = streams.get(key) ?? openHttp(to, { method: 'GET', path: w.path ?? '/', headers: headersFor(w) });
      streams.set(key, stream);
      outcomes[i] = await closeStream(stream, countLines(pairs[i].expected), options.timeoutMs);
      completed.set(key, (completed.get(key) ?? 0) + 1);
      i++;
      continue;
    }
    let end = i + 1;
    if (w.batch !== undefined) while (end < pairs.length && pairs[end].wire?.batch === w.batch) end++;
    const group = pairs.slice(i, end);
    const body = w.method === 'GET' || w.method === 'DELETE' || w.method === 'HEAD' ? undefined : group.length > 1 ? `${group.map((p) => p.send).join('\n')}\n` : group[0].send;
    const answer = await httpCall(to, { method: w.method ?? 'POST', path: w.path ?? '/v1/agent', headers: headersFor(w), body }, options.timeoutMs);
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
    if (sw && !streams.has(key) && (w.session === undefined || sessionIds.has(w.session)) && n >= (sw.after ?? 0)) {
      streams.set(key, openHttp(to, { method: 'GET', path: sw.path ?? w.path ?? '/', headers: headersFor(sw) }));
    }
    const parts = group.length > 1 ? splitAtDone(answer.body, group.length) : [answer.body];
    group.forEach((_p, k) => (outcomes[i + k] = { actual: parts[k] ?? '', status: answer.status }));
    i = end;
  }
  for (const s of streams.values()) s.abort();
  return { outcomes, stoppedAt: pairs.length };
}

function countLines(text: string): number {
  return text.split('\n').filter((l) => l !== '').length;
}

/** Waits (bounded) for as many messages as were recorded on the stream, then ends it. */
async function closeStream(stream: OpenStream, expected: number, timeoutMs: number): Promise<LiveOutcome> {
  const head = await stream.headers;
  if (isFailure(head)) return { actual: head.partial, failure: head };
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
  stream.abort();
  const answer = await stream.done;
  return isFailure(answer) ? { actual: answer.partial, status: head.status } : { actual: answer.body, status: head.status };
}
