import { connect } from 'node:net';
import { AgentError } from '../errors.js';
import type { Envelope, HostRequest } from '../protocol.js';

/**
 * Sends one request to a session host and reads its one response. A socket
 * that is missing or refuses the connection is HOST_UNREACHABLE (the caller
 * reconciles); no answer within `timeoutMs` is HOST_TIMEOUT.
 */
export function requestHost(socketPath: string, request: HostRequest, timeoutMs: number, sessionId?: string): Promise<Envelope> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      fn();
    };
    const timer = setTimeout(
      () => finish(() => reject(new AgentError('HOST_TIMEOUT', `the session host did not answer ${request.command} within ${timeoutMs} ms`, { sessionId, socketPath, timeoutMs }))),
      timeoutMs,
    );
    socket.on('connect', () => socket.end(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      const unreachable = err.code === 'ENOENT' || err.code === 'ECONNREFUSED' || err.code === 'ENOTSOCK' || err.code === 'EPIPE' || err.code === 'ECONNRESET';
      finish(() =>
        reject(
          unreachable
            ? new AgentError('HOST_UNREACHABLE', `the session host is unreachable (${err.code}) at ${socketPath}`, { sessionId, socketPath })
            : new AgentError('RPC_ERROR', `control socket error: ${err.message}`, { sessionId, socketPath }),
        ),
      );
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8').trim();
      if (!text) {
        finish(() => reject(new AgentError('HOST_UNREACHABLE', `the session host closed the connection without answering ${request.command}`, { sessionId, socketPath })));
        return;
      }
      try {
        const envelope = JSON.parse(text) as Envelope;
        if (typeof envelope.ok !== 'boolean') throw new Error('no "ok" field');
        finish(() => resolve(envelope));
      } catch (err) {
        finish(() => reject(new AgentError('PROTOCOL_ERROR', `the session host sent an invalid response: ${(err as Error).message}`, { sessionId, socketPath })));
      }
    });
  });
}
