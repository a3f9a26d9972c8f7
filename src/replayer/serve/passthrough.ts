import { oneLine } from '../../core/text/terminal-safe.js';
import { ResponseFramer, responseBytes, type Exchange } from '../../core/framing/boundary.js';
import { TapeAppender } from '../../recorder/stdio/tape-writer.js';
import { ServerProcess } from '../protocol/server-process.js';

/**
 * `serve TAPE --passthrough -- CMD`: requests the tape cannot answer go to a
 * real server, and what it answers goes to the client and is appended to the
 * tape (VCR's new_episodes). The server starts at the first such request and is
 * first given the requests already answered from the tape (their responses
 * dropped), so a stateful protocol such as MCP finds it initialized. A tape in
 * Content-Length framing (LSP, DAP) speaks it to the real server too: each
 * message framed, its answers read as messages (one JSON value per line).
 */
export class Passthrough {
  private server?: ServerProcess;
  private framer?: ResponseFramer;
  private waiting = new Map<number, (ex: Exchange) => void>();
  private readonly tape: TapeAppender;
  appended = 0;

  constructor(
    private readonly command: readonly string[],
    tapePath: string,
    private readonly timeoutMs: number,
    private readonly log: (message: string) => void,
    private readonly env: NodeJS.ProcessEnv,
    /** `content-length`: the tape spoke LSP/DAP framing, and so does the real server. */
    private readonly framing?: string,
  ) {
    this.tape = new TapeAppender(tapePath, log);
  }

  /** Sends one request to the real server; resolves with its complete response (empty when it needs none). */
  async forward(request: string, history: readonly string[]): Promise<Buffer> {
    if (!this.server) {
      await this.start();
      for (const earlier of history) await this.exchange(earlier);
    }
    const response = await this.exchange(request);
    this.tape.append(request, response);
    this.appended++;
    return response;
  }

  async close(): Promise<void> {
    this.tape.close();
    if (this.server) await this.server.stop(500);
    this.framer?.dispose();
  }

  private async start(): Promise<void> {
    this.framer = new ResponseFramer({ kind: 'auto' }, {
      takePartial: () => this.server?.takePartial(),
      onComplete: (ex) => {
        const done = this.waiting.get(ex.index);
        this.waiting.delete(ex.index);
        done?.(ex);
      },
    });
    const framer = this.framer;
    this.server = await ServerProcess.start(this.command, { env: this.env, framing: this.framing }, {
      onLine: (line) => framer.serverLine(line),
      onActivity: () => framer.serverActivity(),
      onPartial: (tail) => framer.serverPartial(tail),
    });
    void this.server.closed.then(() => framer.finish());
  }

  private exchange(request: string): Promise<Buffer> {
    const framer = this.framer!;
    return new Promise((resolve) => {
      const index = framer.nextRequestIndex;
      let timer: NodeJS.Timeout | undefined;
      this.waiting.set(index, (ex) => {
        if (timer) clearTimeout(timer);
        resolve(responseBytes(ex));
      });
      const ex = framer.addRequest(request);
      this.server!.send(request); // a line, or framed with its Content-Length header
      if (ex && !ex.complete) {
        timer = setTimeout(() => {
          this.waiting.delete(index);
          this.log(`tapedeck serve: the passthrough server gave no complete response within ${this.timeoutMs} ms: ${oneLine(request)}\n`);
          resolve(responseBytes(ex));
        }, this.timeoutMs);
      }
    });
  }
}
