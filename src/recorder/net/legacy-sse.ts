import { type Exchange, ResponseFramer, responseBytes } from '../../core/framing/boundary.js';
import { trimWhiteSpace } from '../../core/text/trim.js';
import { SESSION_PLACEHOLDER, type WireNote } from '../../tape/protocol/wire.js';
import type { RecordedPair } from './http-pairs.js';

/**
 * MCP's legacy HTTP+SSE transport (protocol 2024-11-05, the SDK's
 * SSEClientTransport) as seed-000 pairs: the client opens `GET /sse`, whose
 * first event (`event: endpoint`) names where to POST (`/message?sessionId=…`);
 * each POST is answered `202 Accepted` and the real answer comes on the
 * stream. So the session is framed as stdio is: each POST body is a request,
 * the stream's messages are the server's output, paired by JSON-RPC id
 * (core/framing/boundary.ts). The random session id is stored as a
 * placeholder, so replay and serve can put a live one in its place.
 */
interface Entry {
  seq: number;
  request: string;
  response?: string;
  wire?: WireNote;
  hide?: (text: string) => string;
}

interface Session {
  number: number;
  liveId: string;
  framer: ResponseFramer;
  /** By framer exchange index. */
  entries: Map<number, Entry>;
}

export class LegacySseRecorder {
  private readonly byStream = new Map<object, Session>();
  private readonly byId = new Map<string, Session>();
  private readonly bySeq = new Map<number, Entry>();

  /** `write(seq, pair)`: a pair is complete (its response framed and its 202 seen). */
  constructor(
    private readonly write: (seq: number, pair: RecordedPair, hide: (text: string) => string) => void,
    /** A session that can never replay: the recording stops, saying why (record exits 2). */
    private readonly refuse: (reason: string) => void = () => {},
    /** host:port clients reach the proxy at: an endpoint URL naming another goes around it. */
    private readonly proxyHost: () => string | undefined = () => undefined,
  ) {}

  /** An SSE event of a GET stream: its first, `endpoint`, makes it a legacy session. Returns whether it was one. */
  event(stream: object, event: string | undefined, data: string, first: boolean, sessionNumber: (liveId: string) => number): boolean {
    const session = this.byStream.get(stream);
    if (session) {
      if (event === undefined || event === 'message') session.framer.serverLine(Buffer.from(`${data}\n`));
      return true;
    }
    if (!first || event !== 'endpoint') return false;
    const around = bypassing(data, this.proxyHost());
    if (around) {
      this.refuse(`the legacy SSE endpoint ${JSON.stringify(data)} names ${around}, not this proxy: the client's POSTs would go around the recording, and a tape without them can never replay (serve the endpoint as a path, or record with --upstream at that address)`);
      return false;
    }
    const liveId = sessionIdOf(data);
    if (liveId === undefined) return false;
    const s: Session = {
      number: sessionNumber(liveId),
      liveId,
      entries: new Map(),
      framer: new ResponseFramer({ kind: 'jsonrpc' }, { takePartial: () => undefined, holdLast: true, onComplete: (ex) => this.completed(s, ex) }),
    };
    this.byStream.set(stream, s);
    this.byId.set(liveId, s);
    return true;
  }

  /** A POST body has arrived (before its server can answer on the stream): a request of the session it names. */
  request(path: string, seq: number | undefined, body: string): boolean {
    const id = sessionIdOf(path);
    const s = id === undefined ? undefined : this.byId.get(id);
    if (!s || seq === undefined) return false;
    const text = trimWhiteSpace(body);
    const index = s.framer.nextRequestIndex;
    const ex = s.framer.addRequest(text);
    if (!ex) return false; // a blank body is no request: recorded as any body-less exchange
    const entry: Entry = { seq, request: text };
    s.entries.set(index, entry);
    this.bySeq.set(seq, entry);
    return true;
  }

  /** Whether the exchange at `seq` is a legacy POST (its pair is written by this recorder). */
  owns(seq: number | undefined): boolean {
    return seq !== undefined && this.bySeq.has(seq);
  }

  /** The POST's own HTTP answer (202): the pair's wire note, its session id as the placeholder. */
  answered(seq: number, wire: WireNote, hide: (text: string) => string): void {
    const entry = this.bySeq.get(seq);
    if (!entry) return;
    entry.hide = hide;
    const s = this.byId.get(sessionIdOf(wire.path ?? '') ?? '');
    entry.wire = { ...wire, path: withPlaceholder(wire.path ?? '/', s?.liveId), legacy_sse: true, ...(s ? { session: s.number } : {}) };
    this.flush(entry);
  }

  /** The GET stream ended: every exchange of its session ends as it is. Returns the stream's own pair, normalised. */
  endStream(stream: object, pair: RecordedPair): RecordedPair | undefined {
    const s = this.byStream.get(stream);
    if (!s) return undefined;
    this.byStream.delete(stream);
    s.framer.finish(); // held server messages go to the last exchange (holdLast); none can come before a request
    for (const entry of s.entries.values()) {
      entry.response ??= '';
      this.flush(entry);
    }
    const endpoint = pair.response.split('\n')[0];
    return { ...pair, response: `${withPlaceholder(endpoint, s.liveId)}\n`, wire: { ...pair.wire, legacy_sse: true, session: s.number } };
  }

  /** Recording stops: what is still open is written as it is. */
  close(): void {
    for (const entry of this.bySeq.values()) {
      entry.response ??= '';
      entry.wire ??= { transport: 'http', method: 'POST', path: '/', legacy_sse: true };
      this.flush(entry);
    }
  }

  private completed(s: Session, ex: Exchange): void {
    const entry = s.entries.get(ex.index);
    if (!entry) return;
    s.entries.delete(ex.index);
    entry.response = responseBytes(ex).toString('utf8');
    this.flush(entry);
  }

  private flush(entry: Entry): void {
    if (entry.response === undefined || entry.wire === undefined || !this.bySeq.has(entry.seq)) return;
    this.bySeq.delete(entry.seq);
    this.write(entry.seq, { request: entry.request, response: entry.response, wire: entry.wire }, entry.hide ?? ((t) => t));
  }
}

/** The `sessionId` query parameter of an endpoint path (`/message?sessionId=…`). */
export function sessionIdOf(path: string): string | undefined {
  const q = path.indexOf('?');
  if (q < 0) return undefined;
  return new URLSearchParams(path.slice(q + 1)).get('sessionId') ?? undefined;
}

function withPlaceholder(path: string, liveId: string | undefined): string {
  return liveId === undefined ? path : path.split(encodeURIComponent(liveId)).join(SESSION_PLACEHOLDER);
}

/** An absolute endpoint URL on another host:port than the proxy's: what it names, else undefined. */
function bypassing(endpoint: string, proxy: string | undefined): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint)) return undefined;
  try {
    const host = new URL(endpoint).host;
    return proxy !== undefined && host === proxy ? undefined : host;
  } catch {
    return endpoint;
  }
}
