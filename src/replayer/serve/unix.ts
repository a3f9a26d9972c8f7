import { createServer, type Server } from 'node:net';
import { type Endpoint, listenUnix } from '../../plumbing/net/endpoint.js';
import { LineSplitter } from '../../core/text/lines.js';
import { TapeMatcher, unmatchedReply } from './match.js';

/**
 * The stand-in server on a Unix socket (seed 000: the stdio wire format per
 * connection): each line a connection sends is answered from the tape.
 */
export async function listenUnixServe(matcher: TapeMatcher, listen: Endpoint & { kind: 'unix' }, onUnmatched: (request: string) => void): Promise<Server> {
  const server = createServer((socket) => {
    socket.on('error', () => {}); // a client that hangs up early is no failure of ours
    const lines = new LineSplitter();
    const answer = (line: string) => {
      const request = line.trim();
      if (request === '') return;
      const hit = matcher.match(request);
      if (hit) {
        socket.write(hit.bytes);
        if (isHalt(request)) socket.end(); // seed 000: halt ends the session
        return;
      }
      onUnmatched(request);
      socket.write(unmatchedReply(request));
    };
    socket.on('data', (chunk: Buffer) => {
      for (const l of lines.push(chunk)) answer(l.toString('utf8'));
    });
    socket.once('end', () => {
      const tail = lines.flush();
      if (tail) answer(tail.toString('utf8'));
      socket.end();
    });
  });
  await listenUnix(server, listen.path);
  return server;
}

function isHalt(request: string): boolean {
  try {
    return (JSON.parse(request) as { op?: unknown }).op === 'halt';
  } catch {
    return false;
  }
}
