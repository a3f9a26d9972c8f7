import { readFileSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { type Boundary, ResponseFramer, responseBytes, type Exchange } from '../../core/framing/boundary.js';
import { type Endpoint, describeEndpoint, listenUnix } from '../../plumbing/net/endpoint.js';
import { LineSplitter } from '../../core/text/lines.js';
import { redact } from '../../core/text/redact.js';
import type { RecorderHandle } from './http-proxy.js';
import { TapeAppender, wholeJson } from '../stdio/tape-writer.js';
import { RecordBudget } from '../stdio/budget.js';
import { lastNumbers } from '../../tape/protocol/wire.js';
import { holdBack } from '../stdio/backpressure.js';

export interface UnixRecorderOptions {
  listen: Endpoint & { kind: 'unix' };
  upstream: Endpoint & { kind: 'unix' };
  out: string;
  boundary?: Boundary;
  redactEnv?: readonly string[];
  env?: NodeJS.ProcessEnv;
  report?: (message: string) => void;
}

/**
 * A transparent Unix-socket recording proxy (seed 000: the stdio wire format
 * framed by the socket). Each accepted connection gets its own upstream
 * connection and is its own session, framed as the stdio tap frames; each
 * pair is written as one whole line, so concurrent sessions never interleave
 * inside a line, and carries its session number.
 */
export async function startUnixRecorder(options: UnixRecorderOptions): Promise<RecorderHandle> {
  const report = options.report ?? ((m: string) => process.stderr.write(m));
  const tape = new TapeAppender(options.out, report);
  const env = options.env ?? process.env;
  const names = options.redactEnv ?? [];
  const sockets = new Set<Socket>();
  const finishers = new Set<() => void>();
  // Appending to a tape: sessions number on from the ones already in it.
  let sessions = lastNumbers(options.out, (p) => readFileSync(p, 'utf8')).session;

  const server = createServer((client) => {
    const session = ++sessions;
    const upstream = connect(options.upstream.path);
    sockets.add(client);
    sockets.add(upstream);
    const serverLines = new LineSplitter();
    const clientLines = new LineSplitter();
    const budget = new RecordBudget((reason) => {
      tape.giveUp(reason);
      framer.dropHeld(); // nothing more goes on the tape: let go of what was held for it
    });
    let fragment: Exchange | undefined;
    const framer = new ResponseFramer(options.boundary ?? { kind: 'auto' }, {
      holdLast: true,
      takePartial: () => serverLines.flush(),
      onComplete: (ex) => {
        budget.release();
        if (ex === fragment) {
          tape.notRecorded(); // the client ended mid-line: a cut request would replay as fine
          report(`tapedeck record: session ${session}: the client ended in the middle of a line; its last request (${Buffer.byteLength(ex.request)} bytes, no newline, not a whole JSON message) was not recorded\n`);
          return;
        }
        const response = responseBytes(ex).toString('utf8');
        const wire = { transport: 'unix' as const, session };
        if (names.length === 0) tape.append(ex.request, response, wire);
        else tape.append(redact(ex.request, names, env), redact(response, names, env), wire);
      },
    });
    client.on('data', (chunk: Buffer) => {
      if (!upstream.write(chunk)) holdBack(client, upstream); // forward first, bookkeeping after
      if (budget.exhausted) {
        for (const line of clientLines.push(chunk)) if (line.toString('utf8').trim() !== '') tape.notRecorded(); // counted as the framer counts requests, not kept
        return;
      }
      for (const line of clientLines.push(chunk)) framer.addRequest(line.toString('utf8'));
    });
    client.once('end', () => {
      const tail = clientLines.flush();
      if (tail) {
        const text = tail.toString('utf8');
        const exchange = framer.addRequest(text);
        if (!wholeJson(text)) fragment = exchange;
      }
      upstream.end();
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!client.write(chunk)) holdBack(upstream, client); // a slow client slows the server, not our memory
      if (budget.exhausted) return;
      framer.serverActivity();
      for (const line of serverLines.push(chunk)) framer.serverLine(line);
      budget.hold(chunk.length); // after the pairs this chunk completed were written (and released)
    });
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      const tail = serverLines.flush();
      if (tail) framer.serverPartial(tail);
      framer.finish();
      sockets.delete(client);
      sockets.delete(upstream);
      finishers.delete(finish);
    };
    finishers.add(finish);
    upstream.once('close', () => {
      finish();
      client.end();
    });
    client.once('close', () => {
      if (!upstream.destroyed && upstream.writableEnded === false) upstream.end();
    });
    upstream.once('error', (err) => {
      report(`tapedeck record: upstream ${describeEndpoint(options.upstream)} failed: ${err.message}\n`);
      client.destroy();
    });
    client.once('error', () => upstream.destroy());
  });
  await listenUnix(server, options.listen.path);
  return {
    address: options.listen,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Pairs still open are framed with what they have before the tape closes.
      for (const f of [...finishers]) f();
      for (const s of [...sockets]) s.destroy();
      await closed;
      tape.close();
      return { pairsWritten: tape.written, pairsNotWritten: tape.failed };
    },
  };
}
