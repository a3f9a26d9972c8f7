import { spawn, type ChildProcess } from 'node:child_process';
import { killGroup, trackGroup } from './group.js';
import { TapedeckError, usageError } from '../../core/diagnostics/errors.js';
import { describeExit } from './exit.js';
import { type Endpoint, freePort, privateSocketPath, waitUntilAccepting } from '../net/endpoint.js';

const TAIL_BYTES = 4096;

export interface LaunchExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A server started on a network transport: `{{port}}` in its command becomes
 * a free loopback port, `{{socket}}` a socket path in a private directory. It
 * runs in its own process group (stopping it stops what it started) and is
 * handed over only once it accepts connections.
 */
export class LaunchedServer {
  readonly closed: Promise<LaunchExit>;
  exit?: LaunchExit;
  private tail: Buffer[] = [];
  private tailBytes = 0;

  private constructor(
    private readonly child: ChildProcess,
    readonly endpoint: Endpoint,
    cleanup: () => void,
  ) {
    const keep = (c: Buffer) => {
      this.tail.push(c);
      this.tailBytes += c.length;
      while (this.tailBytes - this.tail[0].length > TAIL_BYTES) this.tailBytes -= this.tail.shift()!.length;
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const forget = trackGroup(child.pid);
    this.closed = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        killGroup(child.pid, 'SIGKILL');
        forget();
        cleanup();
        resolve(this.exit);
      });
    });
  }

  /** `capture` keeps the last few KB of its output for reports; `inherit` sends it to our stderr. */
  static async start(
    command: readonly string[],
    transport: 'http' | 'unix',
    options: { env?: NodeJS.ProcessEnv; cwd?: string; output?: 'capture' | 'inherit'; timeoutMs?: number } = {},
  ): Promise<LaunchedServer> {
    const placeholder = transport === 'http' ? '{{port}}' : '{{socket}}';
    if (!command.some((a) => a.includes(placeholder))) {
      throw usageError(`the server command must say where to listen with ${placeholder} (e.g. -- node server.js --listen ${transport === 'http' ? '127.0.0.1:{{port}}' : '{{socket}}'}), or connect to a running server instead`);
    }
    let endpoint: Endpoint;
    let cleanup = () => {};
    if (transport === 'http') endpoint = { kind: 'tcp', host: '127.0.0.1', port: await freePort() };
    else {
      const sock = privateSocketPath('server.sock');
      endpoint = { kind: 'unix', path: sock.path };
      cleanup = sock.cleanup;
    }
    const value = endpoint.kind === 'tcp' ? String(endpoint.port) : endpoint.path;
    const [cmd, ...args] = command.map((a) => a.split(placeholder).join(value));
    const child = spawn(cmd, args, {
      stdio: options.output === 'inherit' ? ['ignore', 2, 2] : ['ignore', 'pipe', 'pipe'],
      env: options.env,
      cwd: options.cwd,
      detached: true,
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err: NodeJS.ErrnoException) =>
        reject(new TapedeckError('TD2003', `cannot start ${cmd}: ${err.code === 'ENOENT' ? 'command not found' : err.message}`)),
      );
    });
    const server = new LaunchedServer(child, endpoint, cleanup);
    try {
      await waitUntilAccepting(endpoint, () => (server.exit ? `${cmd} exited (${describeExit(server.exit.code, server.exit.signal)}) before accepting connections${server.describeTail()}` : undefined), options.timeoutMs);
    } catch (err) {
      await server.stop(0);
      throw err;
    }
    return server;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  stderrTail(): string {
    return Buffer.concat(this.tail).toString('utf8').slice(-TAIL_BYTES);
  }

  private describeTail(): string {
    const t = this.stderrTail().trimEnd();
    return t ? `; its output ended with:\n${t.split('\n').slice(-10).join('\n')}` : '';
  }

  /** SIGTERM to its group, SIGKILL after `graceMs`. */
  async stop(graceMs = 2000): Promise<LaunchExit> {
    if (this.exit) return this.exit;
    killGroup(this.child.pid, graceMs === 0 ? 'SIGKILL' : 'SIGTERM');
    const timer = setTimeout(() => killGroup(this.child.pid, 'SIGKILL'), graceMs);
    const exit = await this.closed;
    clearTimeout(timer);
    return exit;
  }
}
