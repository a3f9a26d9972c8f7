import { usageError } from '../core/diagnostics/errors.js';

/** mty's spellings (seed 000), kept by every listening command: `--port N` and `--socket PATH`. */
export const listenAliasOptions = {
  port: { type: 'string', arg: 'N', help: 'http: the same as --listen 127.0.0.1:N (seed 000; --listen wins when both are set)' },
  socket: { type: 'string', arg: 'PATH', help: 'unix: the same as --listen PATH (seed 000)' },
} as const;

/**
 * The address to listen on from --listen and its seed-000 aliases: over HTTP
 * `--port N` is `--listen 127.0.0.1:N` (--listen wins when both are set), over
 * a Unix socket `--socket PATH` is `--listen PATH`. An alias of the other
 * transport is a usage error.
 */
export function listenAddress(command: string, transport: string, values: { listen?: string; port?: string; socket?: string }): string | undefined {
  if (transport === 'http') {
    if (values.socket !== undefined) throw usageError(`${command}: --socket applies to --transport unix (over HTTP: --listen HOST:PORT or --port N)`);
    if (values.listen !== undefined) return values.listen;
    if (values.port === undefined) return undefined;
    const n = Number(values.port);
    if (!/^\d+$/.test(values.port) || n > 65535) throw usageError(`${command}: --port expects a port number from 0 to 65535, got ${JSON.stringify(values.port)}`);
    return `127.0.0.1:${n}`;
  }
  if (values.port !== undefined) throw usageError(`${command}: --port applies to --transport http`);
  if (values.listen !== undefined && values.socket !== undefined && values.listen !== values.socket) {
    throw usageError(`${command}: --listen and --socket name different sockets; give one`);
  }
  return values.listen ?? values.socket;
}
