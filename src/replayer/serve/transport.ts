import type { Pace } from '../pace.js';
import type { Server } from 'node:net';
import { type Endpoint, describeEndpoint, parseHostPort, privateSocketPath } from '../../plumbing/net/endpoint.js';
import { Normaliser } from '../../core/text/normalise.js';
import { readProtocolTape, type ProtocolTape } from '../../tape/protocol/tape.js';
import { AUTH_TOKEN_VAR } from '../../tape/protocol/wire.js';
import type { ServeOptions, ServeResult, UnmatchedRequest } from './serve.js';
import { TapeMatcher } from './match.js';
import { serveLogText } from './log.js';
import { oneLine } from '../../core/text/terminal-safe.js';

export interface TransportServeOptions extends Pick<ServeOptions, 'normaliser' | 'allowUnused' | 'log' | 'env'> {
  transport: 'http' | 'unix';
  /** http: HOST:PORT (default 127.0.0.1:0, loopback) or unix:PATH; unix: a socket path (default: one in a private directory). */
  listen?: string;
  authToken?: string;
  bodyLimit?: number;
  pace?: Pace;
  onListening?: (address: string) => void;
  /** Resolves when serving should end (default: SIGINT, SIGTERM or SIGHUP). */
  stopSignal?: Promise<void>;
}

/** `tapedeck serve --transport http|unix`: answers clients from the tape until told to stop. */
export async function serveTransport(tapeOrPath: ProtocolTape | string, options: TransportServeOptions): Promise<ServeResult> {
  const tape = typeof tapeOrPath === 'string' ? await readProtocolTape(tapeOrPath) : tapeOrPath;
  const log = options.log ?? ((m: string) => process.stderr.write(m));
  // --auth-token also stands for a token the recorder found in a body (stored as a placeholder).
  const env = options.authToken === undefined ? (options.env ?? process.env) : { [AUTH_TOKEN_VAR]: options.authToken, ...(options.env ?? process.env) };
  const matcher = new TapeMatcher(tape, options.normaliser ?? new Normaliser(), env);
  const unmatched: UnmatchedRequest[] = [];
  const shown = serveLogText(tape, env);
  const onUnmatched = (request: string) => {
    unmatched.push({ request, index: unmatched.length + 1 });
    log(`tapedeck serve: ${oneLine(tape.path)}: no recorded response matches request: ${shown(request)}\n`);
  };

  let ownSocket: { path: string; cleanup: () => void } | undefined;
  let server: Server;
  let address: Endpoint;
  if (options.transport === 'http') {
    const listen: Endpoint = options.listen?.startsWith('unix:') ? { kind: 'unix', path: options.listen.slice(5) } : parseHostPort(options.listen ?? '127.0.0.1:0');
    // Each listener (and node:http or node:net with it) loads only for its transport.
    const { listenHttp } = await import('./http.js');
    ({ server, address } = await listenHttp(matcher, { listen, authToken: options.authToken, bodyLimit: options.bodyLimit, onUnmatched, pace: options.pace }));
  } else {
    if (!options.listen) ownSocket = privateSocketPath();
    address = { kind: 'unix', path: options.listen ?? ownSocket!.path };
    const { listenUnixServe } = await import('./unix.js');
    server = await listenUnixServe(matcher, address, onUnmatched);
  }
  options.onListening?.(describeEndpoint(address));

  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  let onSignal = () => {};
  const stopped = options.stopSignal ?? new Promise<void>((resolve) => (onSignal = resolve));
  for (const s of signals) process.on(s, onSignal);
  await stopped;
  for (const s of signals) process.off(s, onSignal);
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    (server as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
  });
  ownSocket?.cleanup();

  const unused = matcher.unused();
  if (unused.length > 0 && !options.allowUnused) {
    for (const u of unused) log(`tapedeck serve: ${oneLine(tape.path)}:${u.line}: recorded pair never requested: ${shown(u.request)}\n`);
  }
  const served = tape.pairs.length - unused.length;
  const failed = unmatched.length > 0 || (unused.length > 0 && !options.allowUnused);
  return { served, unmatched, unused, appended: 0, exitCode: failed ? 1 : 0 };
}
