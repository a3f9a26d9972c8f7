import { type Boundary, type Exchange, ResponseFramer, responseBytes } from '../core/boundary.js';
import { Normaliser } from '../core/normalise.js';
import { describeExit } from '../core/process.js';
import { redact, placeholdersIn, restore } from '../core/redact.js';
import { readProtocolTape, type ProtocolTape, type TapePair } from '../core/tape.js';
import { comparePairs, type ComparedPair, explainDifference } from './compare.js';
import type { Drift } from './drift.js';
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
  let wake: (() => void) | undefined;
  const framer = new ResponseFramer(options.boundary ?? { kind: 'auto' }, {
    onComplete: (ex) => {
      exchanges[ex.index] = ex;
      wake?.();
    },
  });
  let trailing: Buffer = Buffer.alloc(0);
  const server = await ServerProcess.start(options.command, { env, cwd: options.cwd }, {
    onLine: (line) => framer.serverLine(line),
    onActivity: () => framer.serverActivity(),
    onPartial: (tail) => framer.serverPartial(tail),
  });
  void server.closed.then(() => {
    trailing = framer.finish();
    wake?.();
  });

  const drifts: Drift[] = [];
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
    details,
    expected: p.expected,
    actual,
    acceptLine: actual === undefined || code === 'TD1002' || code === 'TD1003' ? undefined : replaceResponse(p.pair.raw, p.pair.request, redactFor(tape, actual, options.redactEnv ?? [], env)),
  });

  // Send each request once the previous response has ended, as a client would.
  let stoppedAt = prepared.length;
  for (let i = 0; i < prepared.length; i++) {
    const p = prepared[i];
    const ex = framer.addRequest(p.send, { expectsOutput: p.expected !== '' });
    if (!ex) continue;
    server.write(`${p.send}\n`);
    const outcome = await waitForExchange(() => exchanges[ex.index], () => server.exit !== undefined, timeoutMs, (fn) => (wake = fn));
    const live = exchanges[ex.index] ?? ex;
    const actual = responseBytes(live).toString('utf8');
    const lastAndIdle = live.rule.kind === 'idle' && i === prepared.length - 1;
    if (outcome === 'timeout') {
      const rest = prepared.length - i - 1;
      drifts.push(
        driftAt(p, i, 'TD1002', `no complete response within ${timeoutMs} ms`, [
          `received so far: ${actual === '' ? '(nothing)' : JSON.stringify(actual.slice(0, 500))}`,
          ...(rest > 0 ? [`the server was stopped; ${rest} later pair(s) not replayed`] : []),
        ], actual),
      );
      stoppedAt = i;
      break;
    }
    if (live.endedBy === 'eof' && !lastAndIdle) {
      const exit = await server.closed;
      const rest = prepared.length - i - 1;
      const tail = server.stderrTail().trimEnd();
      drifts.push(
        driftAt(p, i, 'TD1003', `server exited (${describeExit(exit.code, exit.signal)}) before completing this response`, [
          `received before it exited: ${actual === '' ? '(nothing)' : JSON.stringify(actual.slice(0, 500))}`,
          ...(rest > 0 ? [`${rest} later pair(s) not replayed`] : []),
          ...(tail ? ['stderr tail:', ...tail.split('\n').slice(-15).map((l) => `  ${l}`)] : ['stderr: (empty)']),
        ], actual),
      );
      stoppedAt = i;
      break;
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
  if (options.update && drifts.length > 0) {
    // Only complete live responses are accepted; a timeout or a crash is not an answer.
    const replacements = new Map<number, string>();
    for (const d of drifts) {
      if (d.code === 'TD1002' || d.code === 'TD1003') continue;
      const i = d.pair - 1;
      replacements.set(i, redactFor(tape, pairs[i].actual ?? '', options.redactEnv ?? [], env));
    }
    if (replacements.size > 0) {
      rewriteTape(tape, replacements);
      updatedPairs = replacements.size;
    }
  }

  return { tape: tape.path, pairs, drifts, updatedPairs, serverExit, durationMs: performance.now() - started };
}

/** Redacts a live response with the tape's own placeholders plus any requested names. */
export function redactFor(tape: ProtocolTape, live: string, extra: readonly string[], env: NodeJS.ProcessEnv): string {
  const names = new Set(extra);
  for (const p of tape.pairs) for (const n of placeholdersIn(p.request + p.response)) names.add(n);
  return names.size === 0 ? live : redact(live, [...names], env);
}

type WaitOutcome = 'complete' | 'timeout' | 'exited';

async function waitForExchange(
  done: () => Exchange | undefined,
  exited: () => boolean,
  timeoutMs: number,
  setWake: (fn: (() => void) | undefined) => void,
): Promise<WaitOutcome> {
  if (done()) return 'complete';
  return new Promise<WaitOutcome>((resolve) => {
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    const finish = (o: WaitOutcome) => {
      clearTimeout(timer);
      setWake(undefined);
      resolve(o);
    };
    setWake(() => {
      if (done()) finish('complete');
      else if (exited()) finish('exited');
    });
  });
}

export { explainDifference };
