import { rmSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { type Boundary, type Exchange, ResponseFramer, responseBytes } from '../core/boundary.js';
import { Normaliser } from '../core/normalise.js';
import { describeExit } from '../core/process.js';
import { redact, placeholdersIn, restore } from '../core/redact.js';
import { readProtocolTape, type ProtocolTape, type TapePair } from '../tape/protocol-tape.js';
import { comparePairs, type ComparedPair, explainDifference } from './compare.js';
import type { Drift } from '../core/drift.js';
import { ServerProcess, type ServerExit } from './server-process.js';
import { replaceResponse, rewriteTape } from './update.js';

export interface ProtocolReplayOptions {
  /** The server command and its arguments, started fresh for each tape. */
  command: readonly string[];
  boundary?: Boundary;
  /** How long one response may take before it is drift (default 10000). */
  timeoutMs?: number;
  normaliser?: Normaliser;
  /** Rewrite drifted pairs with the live responses, atomically. */
  update?: boolean;
  /**
   * Without update: leave the tape that would accept the live responses beside
   * it as `<tape>.new`, for `tapedeck review` to accept or reject.
   */
  writePending?: boolean;
  /** Extra variables to redact when rewriting (those already in the tape always are). */
  redactEnv?: readonly string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export type PairStatus = 'ok' | 'drifted' | 'not-run';

export interface PairOutcome {
  pair: number;
  line: number;
  request: string;
  status: PairStatus;
  expected: string;
  actual?: string;
}

export interface TapeReplayResult {
  tape: string;
  pairs: PairOutcome[];
  drifts: Drift[];
  /** Pairs rewritten by --update. */
  updatedPairs: number;
  /** The candidate tape written beside it (writePending), when there was drift to accept. */
  pendingPath?: string;
  serverExit?: ServerExit;
  durationMs: number;
}

interface PreparedPair {
  pair: TapePair;
  send: string;
  expected: string;
}

/** Replays one protocol tape against a fresh server and compares every response. */
export async function replayProtocolTape(tapeOrPath: ProtocolTape | string, options: ProtocolReplayOptions): Promise<TapeReplayResult> {
  const started = performance.now();
  const tape = typeof tapeOrPath === 'string' ? await readProtocolTape(tapeOrPath) : tapeOrPath;
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const normaliser = options.normaliser ?? new Normaliser();
  // Restore secrets first: a missing variable is bad input (exit 2), found before anything runs.
  const prepared: PreparedPair[] = tape.pairs.map((pair) => {
    const where = { file: tape.path, line: pair.line };
    return { pair, send: restore(pair.request, env, where), expected: restore(pair.responseBytes ? pair.responseBytes.toString('latin1') : pair.response, env, where) };
  });

  const exchanges: Exchange[] = [];
  let onExchange: (ex: Exchange) => void = () => {};
  let server: ServerProcess | undefined;
  const framer = new ResponseFramer(options.boundary ?? { kind: 'auto' }, {
    takePartial: () => server?.takePartial(),
    onComplete: (ex) => {
      exchanges[ex.index] = ex;
      onExchange(ex);
    },
  });
  let trailing: Buffer = Buffer.alloc(0);
  server = await ServerProcess.start(options.command, { env, cwd: options.cwd }, {
    onLine: (line) => framer.serverLine(line),
    onActivity: () => framer.serverActivity(),
    onPartial: (tail) => framer.serverPartial(tail),
  });
  void server.closed.then(() => {
    trailing = framer.finish();
  });

  const drifts: Drift[] = [];
  // Drifts end up in logs, reports and CI artifacts: secrets in them are shown as placeholders.
  const hide = (text: string) => redactFor(tape, text, options.redactEnv ?? [], env);
  const driftAt = (p: PreparedPair, index: number, code: Drift['code'], title: string, details: string[], actual?: string): Drift => ({
    code,
    tape: tape.path,
    line: p.pair.line,
    byteStart: p.pair.byteStart,
    byteEnd: p.pair.byteEnd,
    pair: index + 1,
    request: p.pair.request,
    recordedLine: p.pair.raw,
    title,
    details: details.map(hide),
    expected: hide(p.expected),
    actual: actual === undefined ? undefined : hide(actual),
    acceptLine: actual === undefined || code === 'TD1002' || code === 'TD1003' ? undefined : replaceResponse(p.pair.raw, p.pair.request, hide(actual)),
  });

  // Send each request once the previous response has ended, as a client would.
  const stop = await driveRequests(prepared, framer, server, timeoutMs, (fn) => (onExchange = fn));
  let stoppedAt = prepared.length;
  if (stop) {
    stoppedAt = stop.index;
    const p = prepared[stop.index];
    const actual = responseBytes(stop.exchange).toString('utf8');
    const rest = prepared.length - stop.index - 1;
    const received = `${stop.reason === 'timeout' ? 'received so far' : 'received before it exited'}: ${actual === '' ? '(nothing)' : JSON.stringify(hide(actual).slice(0, 500))}`; // redacted before cut: no secret fragment
    if (stop.reason === 'timeout') {
      drifts.push(
        driftAt(p, stop.index, 'TD1002', `no complete response within ${timeoutMs} ms`, [
          received,
          ...(rest > 0 ? [`the server was stopped; ${rest} later pair(s) not replayed`] : []),
        ], actual),
      );
    } else {
      const exit = await server.closed;
      const tail = server.stderrTail().trimEnd();
      drifts.push(
        driftAt(p, stop.index, 'TD1003', `server exited (${describeExit(exit.code, exit.signal)}) before completing this response`, [
          received,
          ...(rest > 0 ? [`${rest} later pair(s) not replayed`] : []),
          ...(tail ? ['stderr tail:', ...tail.split('\n').slice(-15).map((l) => `  ${l}`)] : ['stderr: (empty)']),
        ], actual),
      );
    }
  }

  // Compare what was replayed. Wait a little for late server messages the tape expects.
  const compared: ComparedPair[] = [];
  for (let i = 0; i < stoppedAt; i++) {
    const ex = exchanges[i];
    if (!ex) continue;
    compared.push({ index: i, expected: prepared[i].expected, actual: responseBytes(ex).toString(prepared[i].pair.responseBytes ? 'latin1' : 'utf8'), rule: ex.rule, awaitingId: ex.awaitingId });
  }
  const anyRpc = compared.some((c) => c.rule.kind === 'jsonrpc');
  let serverExit: ServerExit;
  if (stoppedAt < prepared.length && server.exit === undefined) serverExit = await server.stop(0);
  else if (anyRpc && comparePairs(compared, normaliser, '').some((d) => d.code === 'TD1004' || d.title.startsWith('server message drifted'))) {
    serverExit = await server.stop(Math.min(timeoutMs, 5000)); // give a slow notification its chance
  } else serverExit = await server.stop(500);
  framer.dispose();

  for (const d of comparePairs(compared, normaliser, trailing.toString('utf8'))) {
    const c = compared.find((x) => x.index === d.index)!;
    drifts.push(driftAt(prepared[d.index], d.index, d.code, d.title, d.details, c.actual));
  }
  drifts.sort((a, b) => a.pair - b.pair);

  const driftedPairs = new Set(drifts.map((d) => d.pair - 1));
  const pairs: PairOutcome[] = prepared.map((p, i) => ({
    pair: i + 1,
    line: p.pair.line,
    request: p.pair.request,
    status: i >= stoppedAt && !driftedPairs.has(i) ? 'not-run' : driftedPairs.has(i) ? 'drifted' : 'ok',
    expected: p.expected,
    actual: exchanges[i] ? responseBytes(exchanges[i]).toString('utf8') : undefined,
  }));

  let updatedPairs = 0;
  let pendingPath: string | undefined;
  if ((options.update || options.writePending) && drifts.length > 0) {
    // Only complete live responses are accepted; a timeout or a crash is not an answer.
    const replacements = new Map<number, string | Buffer>();
    for (const d of drifts) {
      if (d.code === 'TD1002' || d.code === 'TD1003') continue;
      const i = d.pair - 1;
      const live = exchanges[i] ? responseBytes(exchanges[i]) : Buffer.alloc(0);
      // Bytes that are not UTF-8 are kept exactly (response_base64), redacted through a latin1 view.
      replacements.set(
        i,
        isUtf8(live)
          ? redactFor(tape, live.toString('utf8'), options.redactEnv ?? [], env)
          : Buffer.from(redactFor(tape, live.toString('latin1'), options.redactEnv ?? [], env), 'latin1'),
      );
    }
    if (replacements.size > 0 && options.update) {
      rewriteTape(tape, replacements);
      updatedPairs = replacements.size;
    } else if (replacements.size > 0) {
      pendingPath = `${tape.path}.new`;
      rewriteTape(tape, replacements, pendingPath);
    }
  } else if (options.writePending && drifts.length === 0) {
    rmSync(`${tape.path}.new`, { force: true }); // a clean replay makes an old candidate stale
  }

  return { tape: tape.path, pairs, drifts, updatedPairs, pendingPath, serverExit, durationMs: performance.now() - started };
}

/** Redacts a live response with the tape's own placeholders plus any requested names. */
export function redactFor(tape: ProtocolTape, live: string, extra: readonly string[], env: NodeJS.ProcessEnv): string {
  const names = new Set(extra);
  for (const p of tape.pairs) for (const n of placeholdersIn(p.request + p.response)) names.add(n);
  return names.size === 0 ? live : redact(live, [...names], env);
}

interface Stop {
  index: number;
  exchange: Exchange;
  reason: 'timeout' | 'exited';
}

/**
 * Sends the requests one at a time, each as soon as the previous response has
 * ended. Callback-driven (the next request is written from the completion of
 * the previous one, no promise per pair) so replay costs little more than a
 * hand-written client. Resolves with where it had to stop, if it did.
 */
function driveRequests(
  prepared: readonly PreparedPair[],
  framer: ResponseFramer,
  server: ServerProcess,
  timeoutMs: number,
  listen: (fn: (ex: Exchange) => void) => void,
): Promise<Stop | undefined> {
  return new Promise((resolve) => {
    let i = -1;
    let current: Exchange | undefined;
    let deadline = 0;
    let timer: NodeJS.Timeout | undefined;
    let finished = false;
    const finish = (stop: Stop | undefined) => {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      listen(() => {});
      resolve(stop);
    };
    // One timer for the whole tape, re-armed only when it fires early.
    const onTimer = () => {
      timer = undefined;
      if (finished || !current) return;
      const left = deadline - performance.now();
      if (left > 0) timer = setTimeout(onTimer, left);
      else finish({ index: i, exchange: current, reason: 'timeout' });
    };
    const settled = (ex: Exchange) => {
      const lastAndIdle = ex.rule.kind === 'idle' && i === prepared.length - 1;
      if (ex.endedBy === 'eof' && !lastAndIdle) finish({ index: i, exchange: ex, reason: 'exited' });
      else sendNext();
    };
    const sendNext = () => {
      current = undefined;
      while (++i < prepared.length) {
        const p = prepared[i];
        const ex = framer.addRequest(p.send, { expectsOutput: p.expected !== '' });
        if (!ex) continue;
        server.write(`${p.send}\n`);
        if (ex.complete) continue; // a notification: nothing to wait for
        current = ex;
        deadline = performance.now() + timeoutMs;
        timer ??= setTimeout(onTimer, timeoutMs);
        return;
      }
      finish(undefined);
    };
    listen((ex) => {
      if (ex === current) settled(ex);
    });
    void server.closed.then(() => {
      // finish() in the framer has completed whatever was waiting; if it was not, stop here.
      if (!finished && current && !current.complete) finish({ index: i, exchange: current, reason: 'exited' });
    });
    sendNext();
  });
}

export { explainDifference };
