import type { Boundary } from '../../core/framing/boundary.js';
import { type Endpoint, describeEndpoint, parseHostPort, parseUpstream, privateSocketPath } from '../../plumbing/net/endpoint.js';
import { usageError } from '../../core/diagnostics/errors.js';
import { signalExitCode } from '../../plumbing/process/exit.js';
import { LaunchedServer } from '../../plumbing/process/server-launch.js';
import type { RecorderHandle } from './http-proxy.js';

export interface RecordTransportOptions {
  transport: 'http' | 'unix';
  /** HTTP: HOST:PORT (default 127.0.0.1 and a free port); unix: a socket path (default one in a private directory). */
  listen?: string;
  /** A running server: http://HOST:PORT or unix:PATH. Else `command` is started. */
  upstream?: string;
  command?: readonly string[];
  out: string;
  boundary?: Boundary;
  redactEnv?: readonly string[];
  bodyLimit?: number;
  /** Told the address clients should use, once it accepts. */
  onListening?: (address: string) => void;
  /** Resolves when recording should stop (default: SIGINT, SIGTERM or SIGHUP). */
  stopSignal?: Promise<void>;
}

/**
 * `tapedeck record --transport http|unix`: a recording proxy in front of a
 * running server or one it starts (its `{{port}}`/`{{socket}}` filled in),
 * until a signal or the server's exit. Exit code: the server's when it ended
 * on its own, else 0.
 */
export async function recordTransport(options: RecordTransportOptions): Promise<{ exitCode: number; pairsWritten: number; pairsNotWritten: number }> {
  if (!options.upstream === !(options.command && options.command.length > 0)) {
    throw usageError('record: give either --upstream URL (a running server) or the server command after --');
  }
  const server = options.command?.length ? await LaunchedServer.start(options.command, options.transport, { output: 'inherit' }) : undefined;
  const upstream = server ? server.endpoint : parseUpstream(options.upstream!);
  if (upstream.kind !== (options.transport === 'http' ? 'tcp' : 'unix')) {
    await server?.stop();
    throw usageError(`record: --upstream ${options.upstream} does not match --transport ${options.transport}`);
  }
  let ownSocket: { path: string; cleanup: () => void } | undefined;
  let recorder: RecorderHandle;
  try {
    if (options.transport === 'http') {
      const listen = options.listen?.startsWith('unix:') ? ({ kind: 'unix', path: options.listen.slice(5) } as Endpoint) : parseHostPort(options.listen ?? '127.0.0.1:0');
      // Each recorder (and node:http or node:net with it) loads only for its transport.
      const { startHttpRecorder } = await import('./http-proxy.js');
      recorder = await startHttpRecorder({ listen, upstream, out: options.out, redactEnv: options.redactEnv, bodyLimit: options.bodyLimit });
    } else {
      if (!options.listen) ownSocket = privateSocketPath();
      const path = options.listen ?? ownSocket!.path;
      const { startUnixRecorder } = await import('./unix-proxy.js');
      recorder = await startUnixRecorder({ listen: { kind: 'unix', path }, upstream: upstream as Endpoint & { kind: 'unix' }, out: options.out, boundary: options.boundary, redactEnv: options.redactEnv });
    }
  } catch (err) {
    await server?.stop();
    ownSocket?.cleanup();
    throw err;
  }
  options.onListening?.(describeEndpoint(recorder.address));

  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  let onSignal = () => {};
  const stopped = options.stopSignal ?? new Promise<void>((resolve) => (onSignal = resolve));
  for (const s of signals) process.on(s, onSignal);
  const serverExit = server ? server.closed.then((e) => e) : new Promise<never>(() => {});
  const ended = await Promise.race([stopped.then(() => undefined), serverExit]);
  for (const s of signals) process.off(s, onSignal);

  const stats = await recorder.close();
  ownSocket?.cleanup();
  if (server && !ended) await server.stop();
  const exitCode = ended ? (ended.code ?? signalExitCode(ended.signal)) : 0;
  return { exitCode, ...stats };
}
