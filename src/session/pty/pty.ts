import { readSync } from 'node:fs';
import type { IPty } from 'node-pty';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { optionalPackage } from '../../core/lazy-package.js';
import { killGroup } from '../../plumbing/process/group.js';
import { processAlive } from '../../core/process-identity.js';
import { foregroundGroup, ResizeResignal } from './resize-signal.js';

const requireNodePty = optionalPackage<typeof import('node-pty')>('node-pty');
/** How long the master stays open for a child that closed its terminal but has not exited. */
const HANGUP_GRACE_MS = 1000;
let nodePty: typeof import('node-pty') | undefined;

/**
 * node-pty is loaded on the first terminal, not on import: protocol-only use,
 * `serve`, `explain` and `doctor` work without the native module, and a
 * missing one is an error that says how to fix it.
 */
export function loadNodePty(): typeof import('node-pty') {
  if (nodePty) return nodePty;
  try {
    nodePty = requireNodePty();
    return nodePty;
  } catch (err) {
    if (err instanceof TapedeckError) throw err; // not installed (npm install --omit=optional)
    throw new TapedeckError(
      'NATIVE_MODULE_MISSING',
      `terminals need the native module node-pty, which did not load (${String((err as Error).message).split('\n')[0]}). ` +
        `Fix: npm install (node-pty ships prebuilt binaries for linux-x64/arm64 and macOS); elsewhere npm rebuild node-pty (needs python3, make and a C++ compiler).`,
      { cause: err },
    );
  }
}

export interface PtyExit {
  exitCode: number;
  /** Signal number that ended the child, 0 when it exited on its own. */
  signal: number;
}

export interface PtyProcessOptions {
  command: string;
  args: string[];
  rows: number;
  cols: number;
  cwd: string;
  env: Record<string, string>;
  onData: (chunk: Buffer) => void;
  onExit: (exit: PtyExit) => void;
}

/** node-pty internals this module relies on (checked at spawn time). */
interface UnixPtyInternals {
  _fd: number;
  _socket: { destroy: (...args: unknown[]) => unknown; once: (event: 'close', listener: () => void) => void };
  destroy(): void;
}

/** Upper bound on one drain, so a writer that never stops can't wedge us. */
const MAX_DRAIN_BYTES = 256 * 1024 * 1024;

/**
 * A child under node-pty that never loses its last output.
 *
 * Why: when the child exits, node-pty waits at most 200 ms for its read
 * socket to see EOF and then destroys the socket. On Linux the final bytes can
 * still sit in the pty's flip buffer while epoll reports nothing, so the
 * socket never reads them and they are dropped (`seq 1 200000` lost up to
 * ~12 KB in 4 runs of 10). A blocking-style read() on the master fd flushes
 * that buffer. So before node-pty may destroy the socket we read the fd
 * ourselves until EIO (the child side is closed and empty) or EAGAIN
 * (someone else still holds the child side), and hand those bytes on first.
 */
export class PtyProcess {
  readonly pty: IPty;
  /** The master side is (being) closed: writes would fail with EBADF, so they are dropped. */
  private closed = false;
  private readonly resizes = new ResizeResignal(() => this.signalForeground('SIGWINCH'));
  /**
   * The child was reaped: its pid may be handed to any new process from now on
   * (pid_max is 32768 here, and a busy suite goes round it in minutes), so it is
   * never signalled again. Its session was hung up by the kernel when it exited.
   */
  private reaped = false;
  /** destroy() was called: the master closes now, whatever the child is doing. */
  private hangingUp = false;

  constructor(private readonly options: PtyProcessOptions) {
    const pty = loadNodePty();
    try {
      this.pty = pty.spawn(options.command, options.args, {
        name: options.env.TERM ?? 'xterm-256color',
        rows: options.rows,
        cols: options.cols,
        cwd: options.cwd,
        env: options.env,
        encoding: null,
      } as Parameters<typeof pty.spawn>[2]);
    } catch (err) {
      throw new TapedeckError('SPAWN_FAILED', `cannot start ${JSON.stringify(options.command)}: ${(err as Error).message}`, {
        details: { command: options.command, args: options.args },
        cause: err,
      });
    }
    this.installDrain();
    this.pty.onData((data) => {
      this.resizes.output();
      options.onData(data as unknown as Buffer);
    });
    this.pty.onExit(({ exitCode, signal }) => {
      this.reaped = true;
      this.resizes.cancel();
      options.onExit({ exitCode, signal: signal ?? 0 });
    });
  }

  get pid(): number {
    return this.pty.pid;
  }

  private installDrain(): void {
    const internals = this.pty as unknown as Partial<UnixPtyInternals>;
    const socket = internals._socket;
    if (typeof internals._fd !== 'number' || !socket || typeof socket.destroy !== 'function') {
      // A node-pty without these internals would silently lose output; refuse instead.
      this.pty.kill('SIGKILL');
      throw new TapedeckError('ENVIRONMENT', 'unsupported node-pty version: cannot guarantee complete output capture', {
      });
    }
    const fd = internals._fd;
    // Once the socket closed, the fd number may belong to another file: never read it again.
    let open = true;
    socket.once('close', () => {
      open = false;
      this.closed = true;
    });
    const destroy = socket.destroy.bind(socket);
    socket.destroy = (...args: unknown[]) => {
      if (open) this.drain(fd);
      open = false;
      if (this.hangingUp || this.reaped) return destroy(...args);
      // The child closed its side (EIO) but may still be on its way out: closing the master
      // now hangs the terminal up, and the kernel sends the child, its session leader, SIGHUP
      // (a `cat` between closing its output and exiting died of it, 2 runs in 44 under load).
      // So the master stays open until the child has exited, or a program that closed its
      // terminal and runs on has had HANGUP_GRACE_MS.
      const until = performance.now() + HANGUP_GRACE_MS;
      const closeOnceExited = () => {
        if (this.hangingUp || this.reaped || !processAlive(this.pty.pid) || performance.now() > until) destroy(...args);
        else setTimeout(closeOnceExited, 1);
      };
      closeOnceExited();
      return socket;
    };
  }

  private drain(fd: number): void {
    const buf = Buffer.allocUnsafe(64 * 1024);
    let total = 0;
    while (total < MAX_DRAIN_BYTES) {
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch {
        return; // EIO: child side closed and empty; EAGAIN: nothing more right now; EBADF: already closed
      }
      if (n <= 0) return;
      total += n;
      this.options.onData(Buffer.from(buf.subarray(0, n)));
    }
  }

  write(data: string | Buffer): void {
    if (!this.closed) this.pty.write(data);
  }

  /**
   * Closes the master side once writes already handed to node-pty are done:
   * node-pty writes with fs.write on a thread, and closing the fd under it logs
   * "Unhandled pty write error ... EBADF" (e.g. a query answer sent just before dispose).
   */
  async close(): Promise<void> {
    this.closed = true;
    const queue = (this.pty as unknown as { _writeStream?: { _writeQueue?: unknown[] } })._writeStream?._writeQueue;
    for (let i = 0; i < 50 && queue && queue.length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 2));
    this.destroy();
  }

  resize(rows: number, cols: number): void {
    if (this.closed) return;
    try {
      this.pty.resize(cols, rows);
    } catch (err) {
      // The child ended and node-pty closed the master before its exit was reported (a cast's resize
      // step right after the program quit): "ioctl(2) failed, EBADF". Nobody is left to tell the size.
      if (!/EBADF|EIO|ENOTTY/.test((err as Error).message)) throw err;
      return;
    }
    this.resizes.resized();
  }

  /** Signals the child itself (not its process group). */
  signal(signal: NodeJS.Signals): void {
    if (!this.reaped) process.kill(this.pty.pid, signal);
  }

  /** Signals the job in the terminal's foreground (where the kernel sends SIGWINCH), or the child when that is unknown. */
  private signalForeground(signal: NodeJS.Signals): void {
    if (this.closed || this.reaped) return;
    try {
      const group = foregroundGroup(this.pty.pid);
      process.kill(group === undefined ? this.pty.pid : -group, signal);
    } catch {
      // Already gone.
    }
  }

  /** Signals the child's process group, while the child has not been reaped. */
  signalGroup(signal: NodeJS.Signals): void {
    if (!this.reaped) killGroup(this.pty.pid, signal);
  }

  /** Ends the child's whole process group and closes the master side. */
  destroy(): void {
    this.closed = true;
    this.hangingUp = true;
    this.resizes.cancel();
    this.signalGroup('SIGHUP');
    try {
      (this.pty as unknown as UnixPtyInternals).destroy();
    } catch {
      // already closed
    }
  }
}

