import { connect } from 'node:net';
import { type Boundary, type Exchange, ResponseFramer, responseBytes } from '../../core/framing/boundary.js';
import type { Endpoint } from '../../plumbing/net/endpoint.js';
import { LineSplitter } from '../../core/text/lines.js';
import type { DriveOptions, LiveOutcome, WirePair } from './drive-http.js';

/**
 * Seed 000 over a Unix socket: each recorded session (connection) replayed on
 * a connection of its own, one session after another in order of first appearance, each request sent once the previous
 * response has ended (framed as over stdio), then the connection half-closed
 * and read to its end; what follows the last response belongs to it, as the
 * recorder stores it.
 */
export async function driveUnix(pairs: readonly WirePair[], to: Endpoint & { kind: 'unix' }, options: DriveOptions & { boundary?: Boundary }): Promise<{ outcomes: LiveOutcome[]; stoppedAt: number }> {
  const outcomes: LiveOutcome[] = [];
  // Pairs of one session go over one connection, whatever recorded sessions ran beside it.
  const sessions = new Map<number | undefined, number[]>();
  pairs.forEach((p, i) => {
    const list = sessions.get(p.wire?.session);
    if (list) list.push(i);
    else sessions.set(p.wire?.session, [i]);
  });
  for (const indices of sessions.values()) {
    const stop = await driveSession(indices.map((i) => pairs[i]), to, options, (k, o) => (outcomes[indices[k]] = o));
    if (stop !== undefined) return { outcomes, stoppedAt: indices[stop] };
  }
  return { outcomes, stoppedAt: pairs.length };
}

function driveSession(
  pairs: readonly WirePair[],
  to: Endpoint & { kind: 'unix' },
  options: DriveOptions & { boundary?: Boundary },
  set: (k: number, o: LiveOutcome) => void,
): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = connect(to.path);
    const lines = new LineSplitter();
    let current: Exchange | undefined;
    let k = -1;
    let timer: NodeJS.Timeout | undefined;
    let finished = false;
    let last: Exchange | undefined;
    let lastK = -1;
    const finish = (stop: number | undefined) => {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      framer.dispose();
      socket.destroy();
      resolve(stop);
    };
    const framer = new ResponseFramer(options.boundary ?? { kind: 'auto' }, {
      takePartial: () => lines.flush(),
      onComplete: (ex) => {
        if (ex !== current) return;
        if (timer) clearTimeout(timer);
        if (ex.endedBy === 'eof') {
          set(k, { actual: responseBytes(ex).toString('utf8'), failure: { failure: 'exited', message: 'the server closed the connection before completing this response', partial: responseBytes(ex).toString('utf8') } });
          return finish(k);
        }
        set(k, { actual: responseBytes(ex).toString('utf8') });
        last = ex;
        lastK = k;
        sendNext();
      },
    });
    const sendNext = () => {
      current = undefined;
      while (++k < pairs.length) {
        const ex = framer.addRequest(pairs[k].send, { expectsOutput: pairs[k].expected !== '' });
        if (!ex) continue;
        socket.write(`${pairs[k].send}\n`);
        if (ex.complete) {
          set(k, { actual: '' });
          continue;
        }
        current = ex;
        timer = setTimeout(() => {
          set(k, { actual: responseBytes(ex).toString('utf8'), failure: { failure: 'timeout', message: `no complete response within ${options.timeoutMs} ms`, partial: responseBytes(ex).toString('utf8') } });
          finish(k);
        }, options.timeoutMs);
        return;
      }
      // Every request sent and answered: end our side and take what the server still says.
      socket.end();
    };
    socket.on('data', (chunk: Buffer) => {
      framer.serverActivity();
      for (const line of lines.push(chunk)) framer.serverLine(line);
    });
    socket.once('connect', sendNext);
    let connected = false;
    socket.once('connect', () => (connected = true));
    socket.on('error', (err) => {
      if (connected) return; // a reset mid-session: 'close' reports the exchange it cut
      set(0, { actual: '', failure: { failure: 'refused', message: `cannot connect: ${err.message}`, partial: '' } });
      finish(0);
    });
    socket.once('close', () => {
      const tail = lines.flush();
      if (tail) framer.serverPartial(tail);
      const rest = framer.finish();
      if (finished) return;
      if (current && !current.complete) return; // onComplete (eof) has reported it
      if (last && rest.length > 0) set(lastK, { actual: responseBytes(last).toString('utf8') + rest.toString('utf8') });
      finish(undefined);
    });
  });
}
