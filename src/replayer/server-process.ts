import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { TapedeckError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { LineSplitter } from '../core/lines.js';

const STDERR_TAIL_BYTES = 4096;

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
  private readonly lines = new LineSplitter();

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    handlers: { onLine: (line: Buffer) => void; onActivity: () => void; onPartial: (tail: Buffer) => void },
  ) {
    child.stdin.on('error', () => {}); // EPIPE when it died: reported through `closed`
    child.stdout.on('data', (chunk: Buffer) => {
      handlers.onActivity();
      for (const line of this.lines.push(chunk)) handlers.onLine(line);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderrChunks.push(chunk);
      this.stderrBytes += chunk.length;
      while (this.stderrBytes - this.stderrChunks[0].length > STDERR_TAIL_BYTES) this.stderrBytes -= this.stderrChunks.shift()!.length;
    });
    this.closed = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        const tail = this.lines.flush();
        if (tail) handlers.onPartial(tail);
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
  }

  static async start(
    command: readonly string[],
    options: { env?: NodeJS.ProcessEnv; cwd?: string },
    handlers: { onLine: (line: Buffer) => void; onActivity: () => void; onPartial: (tail: Buffer) => void },
  ): Promise<ServerProcess> {
    const [cmd, ...args] = command;
    if (!cmd) throw new TapedeckError('USAGE', 'no server command: give it after --, e.g. tapedeck replay tape.ndjson -- node server.js');
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: options.env, cwd: options.cwd });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err: NodeJS.ErrnoException) =>
        reject(
          new TapedeckError('TD2003', `cannot start ${cmd}: ${err.code === 'ENOENT' ? 'command not found' : err.code === 'EACCES' ? 'permission denied' : err.message}`, {
            exitCode: ExitCode.usage,
          }),
        ),
      );
    });
    return new ServerProcess(child, handlers);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  write(data: string): void {
    if (!this.exit) this.child.stdin.write(data);
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
    this.child.kill('SIGTERM');
    if (await this.closedWithin(2000)) return this.exit!;
    this.child.kill('SIGKILL');
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
