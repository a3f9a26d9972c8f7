import { type Boundary, countLines, type Exchange, ResponseFramer } from '../../core/framing/boundary.js';
import type { PreparedPair, PreparedTape } from './prepare.js';
import { ServerProcess, type ServerExit } from './server-process.js';
import type { TapeAnswers } from './tape-answers.js';
import { liveBytes, lineCount, liveResponse, type LiveResponses } from './live-response.js';
import { PACE_LAST_GAP_MS, readBy, type Pace } from '../pace.js';
import { processTree } from '../../plumbing/process/pipe-peer.js';

/**
 * The second step of a protocol replay: one session of a tape against one
 * fresh server. Requests go one at a time, each once the previous response has
 * ended, as a client would; the server's own requests are answered from the
 * tape as they come. Nothing is compared here.
 */
export interface DriveSettings {
  command: readonly string[];
  boundary: Boundary;
  timeoutMs: number;
  maxResponseBytes: number;
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** The tape's text with the scratch directory in place of its placeholder. */
  withDir: (text: string) => string;
  /** Client messages that wait for no answer go one at a time, each once the server has read the one before (default recorded). */
  pace?: Pace;
}

export interface Stop {
  /** The pair that could not finish. */
  pair: number;
  reason: 'timeout' | 'exited' | 'limit';
  /** What it had received, including an unterminated last line. */
  received: Buffer;
  /** How many bytes came in all (over the limit: more than `received` holds). */
  total?: number;
}

export interface SessionRun {
  /** The pairs whose live response came (kept in the tape's LiveResponses), in the order they ended. */
  received: number[];
  stop?: Stop;
  /** Server output after the last exchange ended. */
  trailing: string;
  exit: ServerExit;
  stderrTail: string;
}

export async function driveSession(prepared: PreparedTape, session: readonly number[], answers: TapeAnswers, s: DriveSettings, live: LiveResponses): Promise<SessionRun> {
  const received: number[] = [];
  /** Exchange index → the pair it sends (decoded once, kept while its response is awaited). */
  const pairOfExchange = new Map<number, { index: number; p: PreparedPair }>();
  let onExchange: (ex: Exchange) => void = () => {};
  let server: ServerProcess | undefined;
  const framer = new ResponseFramer(s.boundary, {
    takePartial: () => server?.takePartial(),
    onComplete: (ex) => {
      // The next request goes first: the server works on it while this response is compared.
      onExchange(ex);
      const sent = pairOfExchange.get(ex.index);
      if (sent !== undefined) {
        pairOfExchange.delete(ex.index);
        // Compared bytes first and kept compactly: its buffers go now.
        live.set(sent.index, liveResponse(ex, s.withDir(sent.p.expected), sent.p.pair.responseBytes !== undefined));
        received.push(sent.index);
      }
    },
  });
  const add = (pair: number | undefined, text: string, expectsOutput: boolean, p = pair === undefined ? undefined : prepared.at(pair), endAfterTotal?: number): Exchange | undefined => {
    // Written before it is registered (no output is read in between): the server starts on it sooner.
    if (text.trim() !== '') server!.send(text); // a blank line is no request
    const index = framer.nextRequestIndex;
    if (pair !== undefined) pairOfExchange.set(index, { index: pair, p: p! });
    const recorded = p === undefined ? undefined : s.withDir(p.expected);
    // A cancelled request ends when its own recorded lines came or the server's total reached the recorded one.
    const endAfterLines = endAfterTotal === undefined ? undefined : countLines(recorded ?? '');
    return framer.addRequest(text, { expectsOutput, recorded, endAfterLines, endAfterTotal });
  };
  // The recorded server's line total at the end of session pair k, summed as far as asked (only cancels ask).
  let countedTo = -1;
  let recordedLines = 0;
  const recordedLinesThrough = (k: number): number => {
    while (countedTo < k) recordedLines += countLines(prepared.at(session[++countedTo]).expected);
    return recordedLines;
  };
  /** A recorded answer to a server request waits for the live server to ask (answers.answer sends it). */
  let onAnswered: (pair: number) => void = () => {};
  /**
   * An error in a handler the server's output or a timer runs (reading a pair
   * back from a tape file that changed, say) ends the session and is thrown by
   * it, instead of escaping as an uncaught exception.
   */
  let failure: { error: unknown } | undefined;
  let fail = (error: unknown) => {
    failure ??= { error };
  };
  const guarded =
    <A extends unknown[]>(fn: (...args: A) => void) =>
    (...args: A): void => {
      try {
        fn(...args);
      } catch (err) {
        fail(err);
      }
    };

  let bytes = 0;
  let overLimit: () => void = () => {};
  let trailing: Buffer = Buffer.alloc(0);
  server = await ServerProcess.start(s.command, { env: s.env, cwd: s.cwd, framing: prepared.framing }, {
    onLine: guarded((line) => {
      framer.serverLine(line);
      // Only a line that could be a request from the server is decoded again.
      const reply = line.includes('"method"') ? answers.answer(line.toString('utf8')) : undefined;
      if (reply) {
        add(reply.pair, reply.text, false);
        if (reply.pair !== undefined) onAnswered(reply.pair);
      }
    }),
    onActivity: (n) => {
      framer.serverActivity();
      bytes += n;
      if (bytes > s.maxResponseBytes) overLimit();
    },
    onPartial: (tail) => framer.serverPartial(tail),
  });
  void server.closed.then(() => {
    trailing = framer.finish();
  });

  const stop = await new Promise<Stop | undefined>((resolve) => {
    let k = -1;
    let current: { pair: number; ex?: Exchange; cancelled?: boolean } | undefined;
    let timer: NodeJS.Timeout | undefined;
    let deadline = 0;
    let finished = false;
    const arm = () => {
      deadline = performance.now() + s.timeoutMs;
      timer ??= setTimeout(onTimer, s.timeoutMs);
    };
    const receivedSoFar = (ex: Exchange | undefined) => Buffer.concat([...(ex?.chunks ?? []), server!.peekPartial()]);
    const finish = (result: Stop | undefined) => {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      onExchange = () => {};
      onAnswered = () => {};
      overLimit = () => {};
      resolve(result);
    };
    fail = (error) => {
      failure ??= { error };
      finish(undefined);
    };
    // One timer for the whole session, re-armed only when it fires early.
    const onTimer = guarded(() => {
      timer = undefined;
      if (finished || !current) return;
      const left = deadline - performance.now();
      if (left > 0) timer = setTimeout(onTimer, left);
      else if (!current.ex) {
        // The live server never asked what the recorded one did: the comparison reports the request missing.
        answers.sent.add(current.pair);
        sendNext();
      } else if (current.cancelled) framer.end(current.ex); // less output than recorded before the cancel: compared as it is
      else finish({ pair: current.pair, reason: 'timeout', received: receivedSoFar(current.ex) });
    });
    // The pair after the one in flight, decoded while the server answers (not between its answer and the next request).
    let ahead: { k: number; p: PreparedPair } | undefined;
    // --pace recorded: after a message that waits for no answer, the next goes once the server has read it on its own.
    const reader = s.pace === 'none' || server!.pid === undefined ? undefined : processTree(server!.pid);
    let read: { wait: () => Promise<unknown> } | undefined;
    const sendNext = guarded(() => {
      current = undefined;
      if (read && k + 1 < session.length) {
        const pending = read;
        read = undefined;
        void pending.wait().then(() => {
          if (finished) return;
          if (server!.exit !== undefined) finish({ pair: session[k + 1], reason: 'exited', received: Buffer.alloc(0) });
          else sendNext();
        });
        return;
      }
      read = undefined;
      while (++k < session.length) {
        const index = session[k];
        if (answers.sent.has(index)) continue; // an answer already given to the server's request
        if (answers.isAnswer(index)) {
          // Held until the live server asks: sent then, with its id (the onLine handler).
          current = { pair: index };
          arm();
          return;
        }
        answers.sent.add(index);
        bytes = 0;
        const p = ahead?.k === k ? ahead.p : prepared.at(index);
        // Marked before the write (a read right after it still counts), for a message the tape has no answer to.
        const paced = s.pace !== 'none' && p.expected === '' ? readBy(reader, PACE_LAST_GAP_MS) : undefined;
        // A request the client cancelled: the cancel goes once the server has written what it had when it was recorded.
        const endAfterTotal = prepared.cancelled.has(index) ? recordedLinesThrough(k) : undefined;
        const ex = add(index, s.withDir(p.send), p.expected !== '', p, endAfterTotal);
        if (!ex || ex.complete) {
          // A notification, an answer, or a request cancelled before any output: nothing to wait for.
          if (paced && ex) {
            read = paced;
            return sendNext();
          }
          continue;
        }
        current = { pair: index, ex, cancelled: prepared.cancelled.has(index) };
        arm();
        ahead = k + 1 < session.length ? { k: k + 1, p: prepared.at(session[k + 1]) } : undefined;
        return;
      }
      finish(undefined);
    });
    // Over the limit only the ends are kept for the report: memory stays near the limit, not a multiple.
    overLimit = () => finish({ pair: current?.pair ?? session[Math.max(0, k)] ?? 0, reason: 'limit', received: ends([...(current?.ex?.chunks ?? []), server!.discardOutput(ENDS_BYTES)]), total: bytes });
    onAnswered = (pair) => {
      if (current && !current.ex && current.pair === pair) sendNext();
    };
    onExchange = (ex) => {
      if (!current || ex !== current.ex) return;
      const lastAndIdle = ex.rule.kind === 'idle' && k === session.length - 1;
      if (ex.endedBy === 'eof' && !lastAndIdle) finish({ pair: current.pair, reason: 'exited', received: receivedSoFar(ex) });
      else sendNext();
    };
    void server!.closed.then(() => {
      // finish() in the framer has completed whatever was waiting; if it was not, stop here.
      if (current && !current.ex?.complete) finish({ pair: current.pair, reason: 'exited', received: receivedSoFar(current.ex) });
    });
    if (failure) finish(undefined);
    else sendNext();
  });

  if (failure) {
    await server.stop(0);
    framer.dispose();
    throw failure.error;
  }
  let exit: ServerExit;
  try {
    if (stop && server.exit === undefined) exit = await server.stop(0);
    else if (fewerLinesThanRecorded(prepared, session, live)) exit = await server.stop(Math.min(s.timeoutMs, 5000)); // a slow notification's chance
    else exit = await server.stop(500);
  } catch (err) {
    await server.stop(0); // the tape could not be read back: the server is not left running
    throw err;
  } finally {
    framer.dispose();
  }
  if (!stop && trailing.length > 0) trailing = mergeTrailing(prepared, received, live, trailing, s.withDir);
  return { received, stop, trailing: trailing.toString('utf8'), exit, stderrTail: server.stderrTail() };
}

const ENDS_BYTES = 4096;

/**
 * What the server wrote after the session's last exchange ended (after its stdin
 * closed, say) belongs to the last pair, as the recorder keeps it: outside
 * JSON-RPC (whose server messages are matched across the tape) it is merged
 * into that pair's live response. Returns what is left to report as trailing.
 */
function mergeTrailing(prepared: PreparedTape, received: readonly number[], live: LiveResponses, trailing: Buffer, withDir: (t: string) => string): Buffer {
  const last = received.length === 0 ? undefined : Math.max(...received.slice(-8));
  const r = last === undefined ? undefined : live.get(last);
  if (last === undefined || !r || r.rule.kind === 'jsonrpc' || r.rule.kind === 'id') return trailing;
  const p = prepared.at(last);
  const expected = withDir(p.expected);
  const merged: Exchange = { index: last, request: p.send, rule: r.rule, chunks: [liveBytes(r, expected), trailing], complete: true, endedBy: 'eof' };
  live.set(last, liveResponse(merged, expected, p.pair.responseBytes !== undefined));
  return Buffer.alloc(0);
}

/** The first and last few KB of a long run of chunks, without joining all of it. */
function ends(chunks: readonly Buffer[]): Buffer {
  const total = chunks.reduce((n, c) => n + c.length, 0);
  if (total <= 2 * ENDS_BYTES) return Buffer.concat(chunks);
  const first: Buffer[] = [];
  const last: Buffer[] = [];
  for (let i = 0, n = 0; i < chunks.length && n < ENDS_BYTES; n += chunks[i++].length) first.push(chunks[i]);
  for (let i = chunks.length - 1, n = 0; i >= 0 && n < ENDS_BYTES; n += chunks[i--].length) last.unshift(chunks[i]);
  const head = Buffer.concat(first).subarray(0, ENDS_BYTES);
  const tail = Buffer.concat(last);
  return Buffer.concat([head, tail.subarray(tail.length - ENDS_BYTES)]);
}

/** The live run has fewer lines than the tape: a late server message may still come. */
function fewerLinesThanRecorded(prepared: PreparedTape, session: readonly number[], responses: LiveResponses): boolean {
  let recorded = 0;
  let live = 0;
  for (const i of session) {
    const ex = responses.get(i);
    if (ex?.same) continue; // the recorded text itself: as many lines as recorded
    recorded += lineCount(prepared.at(i).expected);
    live += ex ? ex.lines : 1;
  }
  return live < recorded;
}

/**
 * Seed 000's single-shot servers (`--single-shot < req.json`): one request,
 * stdin closed, everything it writes until it exits is the response.
 */
export async function driveSingleShot(prepared: PreparedTape, pair: number, s: DriveSettings, live: LiveResponses): Promise<SessionRun> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let overLimit = false;
  const p = prepared.at(pair); // read before the server starts: a tape that cannot be read leaves none running
  let server: ServerProcess | undefined;
  server = await ServerProcess.start(s.command, { env: s.env, cwd: s.cwd }, {
    onLine: (line) => chunks.push(line),
    onActivity: (n) => {
      bytes += n;
      if (bytes > s.maxResponseBytes && !overLimit) {
        overLimit = true;
        chunks.push(server!.discardOutput(ENDS_BYTES));
        void server!.stop(0);
      }
    },
    onPartial: (tail) => chunks.push(tail),
  });
  server.write(`${s.withDir(p.send)}\n`);
  server.closeStdin();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    server.closed.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), s.timeoutMs))),
  ]);
  clearTimeout(timer);
  const partial = timedOut ? server.peekPartial() : Buffer.alloc(0);
  const exit = await server.stop(0);
  const ex: Exchange = { index: 0, request: p.send, rule: { kind: 'done' }, chunks, complete: true, endedBy: 'boundary' };
  const stop: Stop | undefined = overLimit
    ? { pair, reason: 'limit', received: ends(chunks), total: bytes }
    : timedOut
      ? { pair, reason: 'timeout', received: Buffer.concat([...chunks, partial]) }
      : undefined;
  if (!stop) live.set(pair, liveResponse(ex, s.withDir(p.expected), p.pair.responseBytes !== undefined));
  return { received: stop ? [] : [pair], stop, trailing: '', exit, stderrTail: server.stderrTail() };
}
