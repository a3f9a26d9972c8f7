import { Normaliser } from '../../core/text/normalise.js';
import { describeExit } from '../../plumbing/process/exit.js';
import type { Drift } from '../../core/diagnostics/drift.js';
import { replaceResponse, type ProtocolTape } from '../../tape/protocol/tape.js';
import type { Boundary } from '../../core/framing/boundary.js';
import { comparePairs, type ComparedPair, explainDifference } from './compare.js';
import { driveSession, driveSingleShot, type DriveSettings, type SessionRun, type Stop } from './drive.js';
import type { Pace } from '../pace.js';
import { prepareProtocolTape, tmpdirToPlaceholder, withTmpdir, type PreparedTape } from './prepare.js';
import { acceptLive, redactWith } from './accept.js';
import { openScratch } from '../scratch.js';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS, requireServerCommand } from '../replay-defaults.js';
import type { ServerExit } from './server-process.js';
import { TapeAnswers } from './tape-answers.js';
import { liveBytes, liveCompared, liveText, LiveResponses, type LiveResponse } from './live-response.js';

/**
 * A protocol replay in four steps, each passing over the tape once: prepare
 * (read, validate, restore secrets: protocol/prepare.ts), drive each session
 * against a fresh server (protocol/drive.ts), compare once (compare.ts), and
 * accept (protocol/accept.ts).
 */
export interface ProtocolReplayOptions {
  /** The server command and its arguments, started fresh for each tape (and each session of it). */
  command: readonly string[];
  boundary?: Boundary;
  /** How long one response may take before it is drift (default 10000). */
  timeoutMs?: number;
  /** Client messages that wait for no answer: one at a time, each once the server read the one before (default), or at once. */
  pace?: Pace;
  /** The most bytes one response may have (default 64 MiB); beyond it, drift TD1006. */
  maxResponseBytes?: number;
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
  /** An empty tape replays as clean instead of being bad input. */
  allowEmpty?: boolean;
  /** Seed 000 single-shot servers: per pair a fresh server, the request, stdin closed, read to exit. */
  singleShot?: boolean;
  /** A shell command run in the tape's fresh scratch directory before its server starts. */
  setup?: string;
  /** Give every tape a scratch directory even when nothing mentions {{tapedeck.tmpdir}}. */
  scratch?: boolean;
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
  /** How many pairs the tape has (what `pairs.length` says, without building them). */
  pairCount: number;
  /**
   * Every pair with its status, request, expected and actual response. Built
   * from the replay when first read (a protocol replay keeps one byte per pair
   * that matched, not an object), then kept.
   */
  pairs: PairOutcome[];
  drifts: Drift[];
  /** Pairs rewritten by --update. */
  updatedPairs: number;
  /** The candidate tape written beside it (writePending), when there was drift to accept. */
  pendingPath?: string;
  serverExit?: ServerExit;
  durationMs: number;
}

/** Replays one protocol tape (a path, a read tape, or one prepared by prepareProtocolTape). */
export async function replayProtocolTape(source: ProtocolTape | PreparedTape | string, options: ProtocolReplayOptions): Promise<TapeReplayResult> {
  const started = performance.now();
  const baseCommand = requireServerCommand(options.command);
  const env = options.env ?? process.env;
  const normaliser = options.normaliser ?? new Normaliser();
  const prepared = typeof source !== 'string' && 'sessions' in source ? source : await prepareProtocolTape(source, { ...options, env, normaliser });
  try {
    return await replayPrepared(prepared, baseCommand, env, normaliser, options, started);
  } finally {
    prepared.release(); // the pairs a caller reads later (the result's pairs) open the tape file again
  }
}

async function replayPrepared(prepared: PreparedTape, baseCommand: readonly string[], env: NodeJS.ProcessEnv, normaliser: Normaliser, options: ProtocolReplayOptions, started: number): Promise<TapeReplayResult> {
  const tape = prepared.tape;
  const scratch = openScratch(tape.path, baseCommand, env, { tapeUsesIt: prepared.usesTmpdir, setup: options.setup, always: options.scratch });
  try {
    const withDir = (text: string) => withTmpdir(text, scratch.dir);
    const settings: DriveSettings = {
      command: scratch.command,
      boundary: options.boundary ?? { kind: 'auto' },
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      env: scratch.env,
      cwd: options.cwd,
      withDir,
      pace: options.pace,
    };
    const answers = new TapeAnswers(prepared, withDir);
    const live = new LiveResponses(prepared.count);
    const runs: SessionRun[] = [];
    for (const session of prepared.sessions) {
      if (session.length === 0) continue;
      const run = options.singleShot || prepared.singleShot ? await driveSingleShot(prepared, session[0], settings, live) : await driveSession(prepared, session, answers, settings, live);
      runs.push(run);
      if (run.stop) break; // a stuck or dead server: the rest of the tape is not replayed
    }

    // Drifts end up in logs, reports and CI artifacts: secrets in them are shown as placeholders.
    const hide = (text: string) => redactWith(prepared.secrets, tmpdirToPlaceholder(text, scratch.dir), options.redactEnv ?? [], env);
    const drifts = compareOnce(prepared, runs, live, settings, normaliser, hide, (options.singleShot ?? false) || prepared.singleShot);
    const liveOf = (i: number) => {
      const ex = live.get(i);
      return ex ? liveBytes(ex, withDir(prepared.at(i).expected)) : undefined;
    };
    const accepted = await acceptLive(tape, drifts, liveOf, hide, options);
    const stoppedAt = runs.find((r) => r.stop)?.stop?.pair ?? prepared.count;
    const driftedPairs = new Set(drifts.map((d) => d.pair - 1));
    const outcomes = (): PairOutcome[] => {
      try {
        return outcomeList();
      } finally {
        prepared.release(); // built after the replay: the tape file was opened again for it
      }
    };
    const outcomeList = (): PairOutcome[] =>
      Array.from({ length: prepared.count }, (_, i) => {
        const p = prepared.at(i);
        const ex = live.get(i);
        const expected = withDir(p.expected);
        const actual = ex ? liveText(ex, expected) : undefined;
        const notRun = i >= stoppedAt || (actual === undefined && !answers.sent.has(i));
        return { pair: i + 1, line: p.pair.line, request: p.pair.request, status: driftedPairs.has(i) ? 'drifted' : notRun ? 'not-run' : 'ok', expected, actual };
      });
    const result = { tape: tape.path, pairCount: prepared.count, drifts, ...accepted, serverExit: runs[runs.length - 1]?.exit, durationMs: performance.now() - started };
    return withLazyPairs(result, outcomes);
  } finally {
    scratch.cleanup();
  }
}

/**
 * `pairs` as a property built when first read, then kept as a plain value:
 * enumerable, so spreading or serialising the result still shows it.
 */
export function withLazyPairs(result: Omit<TapeReplayResult, 'pairs'>, build: () => PairOutcome[]): TapeReplayResult {
  return Object.defineProperty(result, 'pairs', {
    enumerable: true,
    configurable: true,
    get(this: TapeReplayResult) {
      const value = build();
      Object.defineProperty(this, 'pairs', { value, enumerable: true, configurable: true, writable: true });
      return value;
    },
    set(this: TapeReplayResult, value: PairOutcome[]) {
      Object.defineProperty(this, 'pairs', { value, enumerable: true, configurable: true, writable: true });
    },
  }) as TapeReplayResult;
}

function compareOnce(prepared: PreparedTape, runs: SessionRun[], live: LiveResponses, s: DriveSettings, normaliser: Normaliser, hide: (t: string) => string, singleShot: boolean): Drift[] {
  const tape = prepared.tape;
  const driftAt = (index: number, code: Drift['code'], title: string, details: string[], actual?: string): Drift => {
    const p = prepared.at(index);
    const expected = s.withDir(p.expected);
    return {
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
      expected: hide(expected),
      actual: actual === undefined ? undefined : hide(actual),
      acceptLine: actual === undefined || code === 'TD1002' || code === 'TD1003' || code === 'TD1006' ? undefined : replaceResponse(p.pair.raw, p.pair.request, hide(actual)),
    };
  };
  const drifts: Drift[] = [];
  // Identical responses have nothing to compare: only those that differ, and each
  // session's last (what followed it belongs to it), go to comparePairs.
  const compared: ComparedPair[] = [];
  const actualOf = new Map<number, string>();
  let anyRpc = false;
  // An identical pair is decoded from the tape only if it is a session's last and something trailed it.
  const comparedOf = (index: number, ex: LiveResponse): ComparedPair => {
    const p = prepared.at(index);
    const expected = s.withDir(p.expected);
    return { index, expected, actual: liveCompared(ex, expected), rule: ex.rule, awaitingId: ex.same ? undefined : ex.awaitingId, normaliser: p.normaliser };
  };
  let last: { index: number; ex: LiveResponse; compared?: ComparedPair } | undefined;
  for (const run of runs) {
    const indexes = run.received.sort((a, b) => a - b);
    for (const i of indexes) {
      if (run.stop && i >= run.stop.pair) continue;
      const ex = live.get(i)!;
      anyRpc ||= ex.rule.kind === 'jsonrpc' || ex.rule.kind === 'id';
      last = { index: i, ex };
      if (!ex.same) {
        last.compared = comparedOf(i, ex);
        compared.push(last.compared);
        actualOf.set(i, last.compared.actual);
      }
      if (singleShot) {
        const c = (last.compared ??= comparedOf(i, ex));
        drifts.push(...exitCodeDrift(prepared.at(i).expected, run.exit, (title, details) => driftAt(i, 'TD1001', title, details, c.actual)));
      }
    }
    if (last && !run.stop && run.trailing) {
      const c = (last.compared ??= comparedOf(last.index, last.ex));
      c.trailing = run.trailing;
      if (compared[compared.length - 1] !== c) compared.push(c);
      actualOf.set(c.index, c.actual);
    }
    if (run.stop) drifts.push(stopDrift(run.stop, run, prepared, s, driftAt, hide));
  }
  for (const d of comparePairs(compared, normaliser, anyRpc)) drifts.push(driftAt(d.index, d.code, d.title, d.details, actualOf.get(d.index)!));
  return drifts.sort((a, b) => a.pair - b.pair);
}

function stopDrift(stop: Stop, run: SessionRun, prepared: PreparedTape, s: DriveSettings, driftAt: (i: number, code: Drift['code'], title: string, details: string[], actual?: string) => Drift, hide: (t: string) => string): Drift {
  const actual = stop.received.toString('utf8');
  const rest = prepared.count - stop.pair - 1;
  const visible = hide(actual); // redacted before it is cut: a secret across the cut would leave a fragment
  const shown = actual === '' ? '(nothing)' : `${stop.total ?? stop.received.length} bytes: ${JSON.stringify(visible.length > 500 ? `${visible.slice(0, 250)}…${visible.slice(-250)}` : visible)}`;
  if (stop.reason === 'limit') {
    return driftAt(stop.pair, 'TD1006', `response larger than the ${s.maxResponseBytes}-byte limit (--max-response-bytes)`, [
      `received ${shown}`,
      `the server was stopped${rest > 0 ? `; ${rest} later pair(s) not replayed` : ''}`,
    ], actual);
  }
  if (stop.reason === 'timeout') {
    return driftAt(stop.pair, 'TD1002', `no complete response within ${s.timeoutMs} ms`, [
      `received so far: ${shown}`,
      ...(rest > 0 ? [`the server was stopped; ${rest} later pair(s) not replayed`] : []),
    ], actual);
  }
  const tail = run.stderrTail.trimEnd();
  return driftAt(stop.pair, 'TD1003', `server exited (${describeExit(run.exit.code, run.exit.signal)}) before completing this response`, [
    `received before it exited: ${shown}`,
    ...(rest > 0 ? [`${rest} later pair(s) not replayed`] : []),
    ...(tail ? ['stderr tail:', ...tail.split('\n').slice(-15).map((l) => `  ${l}`)] : ['stderr: (empty)']),
  ], actual);
}

/** Single-shot: the process exit code must be the one the recorded done line announced. */
function exitCodeDrift(expected: string, exit: ServerExit, drift: (title: string, details: string[]) => Drift): Drift[] {
  const done = expected.split('\n').reverse().find((l) => l.includes('"done"'));
  if (!done) return [];
  let code: unknown;
  try {
    code = (JSON.parse(done) as { exit_code?: unknown }).exit_code;
  } catch {
    return [];
  }
  if (typeof code !== 'number' || exit.code === code) return [];
  return [drift(`exit code ${exit.code ?? describeExit(exit.code, exit.signal)}, recorded ${code}`, [`the recorded done line says exit_code ${code}; the single-shot server exited ${describeExit(exit.code, exit.signal)}`])];
}

export { explainDifference, redactWith };
