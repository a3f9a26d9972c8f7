import { createServer, type Server, type Socket } from 'node:net';
import { chmodSync, rmSync } from 'node:fs';
import { errorEnvelope, resultEnvelope } from '../../core/diagnostics/envelope.js';
import { AgentError, toAgentError } from '../errors.js';
import type { SessionHost } from './host.js';
import { handleRequest } from './ops.js';
import { socketDir } from '../paths.js';
import { hostLogLevel, logAt } from '../log.js';
import { MAX_REQUEST_BYTES, type HostRequest } from '../protocol.js';

/**
 * The control socket (seed 004): a Unix socket of mode 0600 in a 0700
 * directory, one JSON request line per connection, answered with one envelope
 * line. Same-user processes are the trust boundary, so there is no auth.
 */
export function listen(host: SessionHost, socketPath: string): Promise<Server> {
  socketDir(socketPath);
  rmSync(socketPath, { force: true });
  const server = createServer({ allowHalfOpen: true }, (socket) => serve(host, socket));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // umask 077 while binding: the socket never exists with wider permissions.
    const old = process.umask(0o077);
    server.listen(socketPath, () => {
      process.umask(old);
      chmodSync(socketPath, 0o600);
      server.off('error', reject);
      resolve(server);
    });
  });
}

function serve(host: SessionHost, socket: Socket): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let handled = false;
  const answer = async (line: string) => {
    if (handled) return;
    handled = true;
    let command = 'unknown';
    let envelope: Record<string, unknown>;
    try {
      let request: HostRequest;
      try {
        request = JSON.parse(line) as HostRequest;
      } catch (err) {
        throw protocolError(`invalid JSON request: ${(err as Error).message}`);
      }
      if (!request || typeof request.command !== 'string') throw protocolError('a request needs a "command" string');
      command = request.command;
      host.touch();
      logAt(hostLogLevel(), 'debug', `request ${command}`);
      const result = await handleRequest(host, command, request.args ?? {});
      envelope = resultEnvelope(command, result);
    } catch (err) {
      envelope = errorEnvelope(command, toAgentError(err).body());
      logAt(hostLogLevel(), 'info', `request ${command} failed: ${(err as Error).message}`);
    }
    host.touch();
    if (!socket.destroyed) socket.end(`${JSON.stringify(envelope)}\n`);
  };
  socket.on('data', (chunk) => {
    chunks.push(chunk);
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) {
      void answer(`{"command":"request over ${MAX_REQUEST_BYTES} bytes"}`);
      return;
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const nl = text.indexOf('\n');
    if (nl !== -1) void answer(text.slice(0, nl));
  });
  socket.on('end', () => void answer(Buffer.concat(chunks).toString('utf8')));
  socket.on('error', () => socket.destroy());
}

function protocolError(message: string): AgentError {
  return new AgentError('PROTOCOL_ERROR', message, {});
}
