import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { LineSplitter } from '../../core/text/lines.js';
import { CONTENT_LENGTH, ContentLengthSplitter, frameMessage } from '../../core/framing/content-length.js';
import { killGroup, trackGroup } from '../../plumbing/process/group.js';

const STDERR_TAIL_BYTES = 4096;
/** How long stdout may stay open after the server exited (a background child holding it). */
const EXIT_DRAIN_MS = 1000;

export interface ServerHandlers {
  onLine: (line: Buffer) => void;
  /** Bytes arrived on stdout (how many). */
  onActivity: (bytes: number) => void;
  onPartial: (tail: Buffer) => void;
}

export interface ServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A server under test on stdio pipes: line-split stdout, the tail of stderr
 * kept for drift reports, and a 'closed' promise that settles only after its
 * stdout has ended (so no byte it wrote is missed).
 */
export class ServerProcess {
  readonly closed: Promise<ServerExit>;
  exit?: ServerExit;
  private stderrChunks: Buffer[] = [];
  private stderrBytes = 0;
  private readonly lines: LineSplitter | ContentLengthSplitter;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    handlers: ServerHandlers,
    private readonly framing?: string,
  ) {
    this.lines = framing === CONTENT_LENGTH ? new ContentLengthSplitter() : new LineSplitter();
    child.stdin.on('error', () => {}); // EPIPE when it died: reported through `closed`
    child.stdout.on('data', (chunk: Buffer) => {
      if (this.discarding) return;
      handlers.onActivity(chunk.length);
      for (const line of this.lines.push(chunk)) handlers.onLine(line);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderrChunks.push(chunk);
      this.stderrBytes += chunk.length;
      while (this.stderrBytes - this.stderrChunks[0].length > STDERR_TAIL_BYTES) this.stderrBytes -= this.stderrChunks.shift()!.length;
    });
    this.closed = new Promise((resolve) => {
      let settled = false;
      const settle = (code: number | null, signal: NodeJS.Signals | null) => {
        if (settled) return;
        settled = true;
        const tail = this.lines.flush();
        if (tail) handlers.onPartial(tail);
        this.exit = { code, signal };
        killGroup(child.pid, 'SIGKILL'); // anything it left running in its group
        untrack();
        resolve(this.exit);
      };
      // 'close' comes once stdout has ended too, so the last bytes are in. A
      // child that left a background process holding stdout would keep it open
      // for ever: after the exit, give the pipe a moment, then end the group.
      child.once('close', settle);
      child.once('exit', (code, signal) => {
        const timer = setTimeout(() => {
          killGroup(child.pid, 'SIGKILL');
          child.stdout.destroy();
          child.stderr.destroy();
          settle(code, signal);
        }, EXIT_DRAIN_MS);
        child.once('close', () => clearTimeout(timer));
      });
    });
    const untrack = trackGroup(child.pid);
  }

  /** Bytes after the last newline, left in place. */
  peekPartial(): Buffer {
    return this.lines.peek();
  }

  private discarding = false;

  /**
   * From now on its output is dropped, and what is buffered goes: a response
   * over the size limit is not kept, so memory stays near the limit. Returns the
   * first and last `keep` bytes of the unterminated line it held.
   */
  discardOutput(keep: number): Buffer {
    this.discarding = true;
    const partial = this.lines.flush() ?? Buffer.alloc(0);
    return partial.length <= 2 * keep ? partial : Buffer.concat([partial.subarray(0, keep), partial.subarray(partial.length - keep)]);
  }

  /** Bytes after the last newline (an idle boundary closes an exchange on them). */
  takePartial(): Buffer | undefined {
    return this.lines.flush();
  }

  static async start(
    command: readonly string[],
    options: { env?: NodeJS.ProcessEnv; cwd?: string; framing?: string },
    handlers: ServerHandlers,
  ): Promise<ServerProcess> {
    const [cmd, ...args] = command;
    // Its own process group, so stopping it stops whatever it started too.
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: options.env, cwd: options.cwd, detached: true });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err: NodeJS.ErrnoException) =>
        reject(
          new TapedeckError('TD2003', `cannot start ${cmd}: ${err.code === 'ENOENT' ? 'command not found' : err.code === 'EACCES' ? 'permission denied' : err.message}`, {
          }),
        ),
      );
    });
    return new ServerProcess(child, handlers, options.framing);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  write(data: string): void {
    if (!this.exit) this.child.stdin.write(data);
  }

  /** One message: a line, or under Content-Length framing the canonical header block and the body. */
  send(text: string): void {
    if (this.exit) return;
    if (this.framing === CONTENT_LENGTH) this.child.stdin.write(frameMessage(text));
    else this.child.stdin.write(`${text}\n`);
  }

  closeStdin(): void {
    this.child.stdin.end();
  }

  /** Last few KB of stderr, for "server died" reports. */
  stderrTail(): string {
    return Buffer.concat(this.stderrChunks).toString('utf8').slice(-STDERR_TAIL_BYTES);
  }

  /** Ends it: stdin closed, then SIGTERM after `graceMs`, then SIGKILL. */
  async stop(graceMs = 1000): Promise<ServerExit> {
    if (this.exit) return this.exit;
    this.closeStdin();
    if (await this.closedWithin(graceMs)) return this.exit!;
    killGroup(this.child.pid, 'SIGTERM');
    if (await this.closedWithin(2000)) return this.exit!;
    killGroup(this.child.pid, 'SIGKILL');
    return this.closed;
  }

  private closedWithin(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      void this.closed.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
