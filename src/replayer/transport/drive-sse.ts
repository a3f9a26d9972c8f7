import { type Exchange, ResponseFramer } from '../../core/framing/boundary.js';
import type { Endpoint } from '../../plumbing/net/endpoint.js';
import { SESSION_PLACEHOLDER } from '../../tape/protocol/wire.js';
import { type LiveOutcome, type OpenStream, type WirePair, httpCall, isFailure, openHttp } from './http-client.js';

/**
 * One session of MCP's legacy HTTP+SSE transport (2024-11-05) on replay: the
 * GET stream is opened first and its `endpoint` event gives the live session
 * id (the tape holds SESSION_PLACEHOLDER); each request is POSTed there (202)
 * and its answer read from the stream, framed by JSON-RPC id as over stdio.
 */
export class LegacySseSession {
  private stream?: OpenStream;
  private liveId?: string;
  private endpointPath?: string;
  private readonly framer: ResponseFramer;
  private readonly waiting = new Set<{ ex: Exchange; wake: () => void }>();
  private opened?: (ok: boolean) => void;

  constructor(
    private readonly to: Endpoint,
    private readonly timeoutMs: number,
    /** Each server message as it comes (a request of the client to answer). */
    private readonly onMessage: (data: string) => void,
  ) {
    this.framer = new ResponseFramer({ kind: 'jsonrpc' }, { takePartial: () => undefined, onComplete: () => {} });
  }

  /** Opens the GET stream and waits (bounded) for its endpoint event. */
  async open(path: string, headers: Record<string, string>): Promise<LiveOutcome | undefined> {
    const stream = openHttp(this.to, { method: 'GET', path, headers });
    this.stream = stream;
    const named = new Promise<boolean>((resolve) => (this.opened = resolve));
    stream.onEvent((data) => this.event(data));
    const head = await stream.headers;
    if (isFailure(head)) return { actual: head.partial, failure: head };
    let timer: NodeJS.Timeout | undefined;
    const ok = await Promise.race([named, stream.done.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), this.timeoutMs)))]);
    clearTimeout(timer);
    if (!ok) return { actual: stream.partial(), failure: { failure: 'timeout', message: `the legacy SSE stream named no endpoint within ${this.timeoutMs} ms`, partial: stream.partial() } };
    return undefined;
  }

  /** A recorded path with the live session id in place of the placeholder. */
  livePath(path: string): string {
    return this.liveId === undefined ? path : path.split(SESSION_PLACEHOLDER).join(encodeURIComponent(this.liveId));
  }

  /** What the stream's own pair compares: the endpoint, its session id as the tape stores it. */
  endpointText(): string {
    if (this.endpointPath === undefined) return '';
    return `${this.liveId === undefined ? this.endpointPath : this.endpointPath.split(encodeURIComponent(this.liveId)).join(SESSION_PLACEHOLDER)}\n`;
  }

  /** POSTs one request and waits (bounded) for its answer on the stream. */
  async call(p: WirePair, path: string, headers: Record<string, string>, cancelled?: { endAfterLines: number; endAfterTotal: number }): Promise<LiveOutcome> {
    const ex = this.framer.addRequest(p.send, { expectsOutput: p.expected !== '', ...cancelled });
    const posted = await httpCall(this.to, { method: 'POST', path: this.livePath(path), headers, body: p.send }, this.timeoutMs);
    if (isFailure(posted)) return { actual: posted.partial, failure: posted };
    if (!ex) return { actual: '', status: posted.status };
    if (!ex.complete) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        const w = { ex, wake: resolve };
        this.waiting.add(w);
        timer = setTimeout(() => {
          this.waiting.delete(w);
          resolve();
        }, this.timeoutMs);
      });
      clearTimeout(timer);
    }
    const actual = Buffer.concat(ex.chunks).toString('utf8');
    if (!ex.complete) return { actual, failure: { failure: 'timeout', message: `no complete response on the SSE stream within ${this.timeoutMs} ms`, partial: actual } };
    return { actual, status: posted.status };
  }

  close(): void {
    this.stream?.abort();
    this.framer.finish();
    for (const w of this.waiting) w.wake();
    this.waiting.clear();
  }

  private event(data: string): void {
    if (this.endpointPath === undefined) {
      // The first event names the endpoint (a path, or a URL on this server).
      this.endpointPath = data.startsWith('/') ? data : pathOf(data);
      const q = this.endpointPath.indexOf('?');
      this.liveId = q < 0 ? undefined : (new URLSearchParams(this.endpointPath.slice(q + 1)).get('sessionId') ?? undefined);
      this.opened?.(true);
      return;
    }
    this.framer.serverLine(Buffer.from(`${data}\n`));
    for (const w of [...this.waiting]) {
      if (!w.ex.complete) continue;
      this.waiting.delete(w);
      w.wake();
    }
    this.onMessage(data);
  }
}

function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}
