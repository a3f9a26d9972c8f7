import { rmSync } from 'node:fs';
import { classifyRpc, type ResolvedRule } from '../../core/framing/boundary.js';
import { type Endpoint, describeEndpoint, parseUpstream, waitUntilAccepting } from '../../plumbing/net/endpoint.js';
import { TapedeckError, usageError } from '../../core/diagnostics/errors.js';
import { Normaliser } from '../../core/text/normalise.js';
import { describeExit } from '../../plumbing/process/exit.js';
import { LaunchedServer } from '../../plumbing/process/server-launch.js';
import { replaceResponse, type ProtocolTape } from '../../tape/protocol/tape.js';
import { AUTH_TOKEN_VAR, wireOf } from '../../tape/protocol/wire.js';
import { notesPath } from '../../tape/protocol/notes.js';
import { type ComparedPair, comparePairs } from '../protocol/compare.js';
import type { Drift } from '../../core/diagnostics/drift.js';
import { type LiveOutcome, type WirePair, driveHttp } from './drive-http.js';
import { driveUnix } from './drive-unix.js';
import { prepareProtocolTape, type PreparedTape } from '../protocol/prepare.js';
import { TapeAnswers } from '../protocol/tape-answers.js';
import { type PairOutcome, type ProtocolReplayOptions, type TapeReplayResult, redactWith } from '../protocol/replay.js';
import { rewriteTape } from '../protocol/update.js';

/** Which network transport a replay talks over, and to what. */
export interface TransportTarget {
  transport: 'http' | 'unix';
  /** A running server (http://HOST:PORT, or unix:PATH for HTTP over a socket); else CMD is started per tape. */
  url?: string;
  /** A running seed-000 Unix-socket server. */
  socket?: string;
  /** The bearer token for pairs recorded with one (also restores TAPEDECK_AUTH_TOKEN placeholders). */
  authToken?: string;
}

type Prepared = WirePair & { pair: ProtocolTape['pairs'][number]; normaliser: Normaliser };

/**
 * Replays a protocol tape over HTTP or a Unix socket: a fresh server per tape
 * (CMD with `{{port}}`/`{{socket}}`) or a running one, each request sent the
 * way it was recorded, each response compared as over stdio (same
 * normalisers, drift codes, --update and pending candidates), plus the HTTP
 * status.
 */
export async function replayOverTransport(source: ProtocolTape | PreparedTape | string, options: ProtocolReplayOptions & { target: TransportTarget }): Promise<TapeReplayResult> {
  const started = performance.now();
  const { target } = options;
  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env) };
  if (target.authToken !== undefined) env[AUTH_TOKEN_VAR] ??= target.authToken;
  const normaliser = options.normaliser ?? new Normaliser();
  const timeoutMs = options.timeoutMs ?? 10_000;
  // Read, validated, secrets restored and scoped normalisers chosen as for stdio (an empty tape is exit 2).
  const ready = typeof source !== 'string' && 'sessions' in source ? source : await prepareProtocolTape(source, { ...options, env, normaliser });
  const tape = ready.tape;
  let prepared: Prepared[];
  try {
    prepared = Array.from({ length: ready.count }, (_, i) => {
      const p = ready.at(i);
      const wire = wireOf(p.pair);
      if (wire?.auth && target.authToken === undefined) {
        throw new TapedeckError('TD2012', 'this pair was recorded with a bearer token: give --auth-token', { location: { file: tape.path, line: p.pair.line } });
      }
      return { pair: p.pair, wire, send: p.send, expected: p.expected, normaliser: p.normaliser };
    });
  } finally {
    ready.release(); // every pair is read: the tape file is closed for the run
  }

  const carriers = new Map<number, number>();
  for (const r of ready.serverRequests) if (r.answerPair !== undefined) carriers.set(r.answerPair, r.inPair);

  let server: LaunchedServer | undefined;
  let endpoint: Endpoint;
  if (target.url || target.socket) {
    endpoint = target.url ? parseUpstream(target.url, '--url') : { kind: 'unix', path: target.socket! };
    // A running server that is not there is bad input (exit 2), not drift.
    const where = describeEndpoint(endpoint);
    await waitUntilAccepting(endpoint, () => `replay: nothing accepts connections at ${where}`);
  } else {
    if (options.command.length === 0) throw usageError('replay: give the server command after -- (with {{port}} or {{socket}}), or --url/--socket of a running server');
    try {
      server = await LaunchedServer.start(options.command, target.transport, { env, cwd: options.cwd, output: 'capture' });
    } catch (err) {
      if (err instanceof TapedeckError) throw new TapedeckError(err.code, `${tape.path}: replaying over ${target.transport}: ${err.message}`);
      throw err;
    }
    endpoint = server.endpoint;
  }

  let run: { outcomes: LiveOutcome[]; stoppedAt: number };
  try {
    run =
      target.transport === 'unix' && endpoint.kind === 'unix' && !target.url
        ? await driveUnix(prepared, endpoint, { timeoutMs, authToken: target.authToken, boundary: options.boundary })
        : await driveHttp(prepared, endpoint, { timeoutMs, authToken: target.authToken, answers: new TapeAnswers(ready), carrierOf: (pair) => carriers.get(pair), cancelled: ready.cancelled });
    // A server that broke the connection is likely exiting: let it, so its own status is reported.
    const broke = run.outcomes[run.stoppedAt]?.failure;
    if (server && !server.exit && broke && broke.failure !== 'timeout') await Promise.race([server.closed, new Promise((r) => setTimeout(r, 1000).unref())]);
  } finally {
    ready.release(); // answering the server's own requests reads their pairs again
    // A server that outlives its tape would answer the next tape's requests with stale state.
    if (server) await server.stop(500);
  }
  const { outcomes, stoppedAt } = run;

  const hide = (text: string) => redactWith(ready.secrets, text, options.redactEnv ?? [], env);
  const driftAt = (i: number, code: Drift['code'], title: string, details: string[], actual?: string): Drift => ({
    code,
    tape: tape.path,
    line: prepared[i].pair.line,
    byteStart: prepared[i].pair.byteStart,
    byteEnd: prepared[i].pair.byteEnd,
    pair: i + 1,
    request: prepared[i].pair.request,
    recordedLine: prepared[i].pair.raw,
    title,
    details: details.map(hide),
    expected: hide(prepared[i].expected),
    actual: actual === undefined ? undefined : hide(actual),
    acceptLine: actual === undefined || code === 'TD1002' || code === 'TD1003' ? undefined : replaceResponse(prepared[i].pair.raw, prepared[i].pair.request, hide(actual)),
    ...(prepared[i].pair.inNotes ? { file: notesPath(tape.path) } : {}),
  });

  const drifts: Drift[] = [];
  const stop = outcomes[stoppedAt]?.failure;
  if (stop) {
    const actual = outcomes[stoppedAt].actual;
    const rest = prepared.filter((_p, i) => outcomes[i] === undefined).length;
    const exited = server?.exit;
    const tail = server?.stderrTail().trimEnd() ?? '';
    const timeout = stop.failure === 'timeout';
    drifts.push(
      driftAt(stoppedAt, timeout ? 'TD1002' : 'TD1003', timeout ? stop.message : exited ? `server exited (${describeExit(exited.code, exited.signal)}) before completing this response` : stop.message, [
        `received so far: ${actual === '' ? '(nothing)' : JSON.stringify(actual.slice(0, 500))}`,
        ...(rest > 0 ? [`${rest} later pair(s) not replayed`] : []),
        ...(!timeout && tail ? ['server output tail:', ...tail.split('\n').slice(-15).map((l) => `  ${l}`)] : []),
      ], actual),
    );
  }

  const compared: ComparedPair[] = [];
  // Pairs not run (after a stop) have no outcome; the stopped one is reported above.
  const ran = (i: number) => outcomes[i] !== undefined && outcomes[i].failure === undefined;
  for (let i = 0; i < prepared.length; i++) if (ran(i)) compared.push({ index: i, expected: prepared[i].expected, actual: outcomes[i].actual, normaliser: prepared[i].normaliser, ...ruleOf(prepared[i].send) });
  for (const d of comparePairs(compared, normaliser)) drifts.push(driftAt(d.index, d.code, d.title, d.details, outcomes[d.index].actual));
  for (let i = 0; i < prepared.length; i++) {
    if (!ran(i)) continue;
    const recorded = prepared[i].wire?.status;
    const live = outcomes[i]?.status;
    if (recorded === undefined || live === undefined || recorded === live) continue;
    const line = `HTTP status: recorded ${recorded}, live ${live}`;
    const same = drifts.find((d) => d.pair === i + 1);
    if (same) same.details.unshift(line);
    else drifts.push(driftAt(i, 'TD1001', 'HTTP status drifted', [line], outcomes[i].actual));
  }
  drifts.sort((a, b) => a.pair - b.pair);

  const drifted = new Set(drifts.map((d) => d.pair - 1));
  const pairs: PairOutcome[] = prepared.map((p, i) => ({
    pair: i + 1,
    line: p.pair.line,
    request: p.pair.request,
    status: drifted.has(i) ? 'drifted' : outcomes[i] === undefined ? 'not-run' : 'ok',
    expected: p.expected,
    actual: outcomes[i]?.actual,
  }));

  let updatedPairs = 0;
  let pendingPath: string | undefined;
  const replacements = new Map<number, string>();
  for (const d of drifts) if (d.code !== 'TD1002' && d.code !== 'TD1003') replacements.set(d.pair - 1, hide(outcomes[d.pair - 1]?.actual ?? ''));
  if (replacements.size > 0 && options.update) {
    rewriteTape(tape, replacements);
    updatedPairs = replacements.size;
  } else if (replacements.size > 0 && options.writePending) {
    pendingPath = `${tape.path}.new`;
    rewriteTape(tape, replacements, pendingPath);
  } else if (options.writePending && drifts.length === 0) {
    rmSync(`${tape.path}.new`, { force: true });
    rmSync(`${notesPath(tape.path)}.new`, { force: true }); // a candidate for a pair kept in the notes
  }
  const serverExit = server?.exit ? { code: server.exit.code, signal: server.exit.signal } : undefined;
  return { tape: tape.path, pairCount: pairs.length, pairs, drifts, updatedPairs, pendingPath, serverExit, durationMs: performance.now() - started };
}

/** JSON-RPC requests compare their own response apart from server messages (as over stdio); seed 000 compares bytes. */
function ruleOf(request: string): { rule: ResolvedRule; awaitingId?: string } {
  const rpc = classifyRpc(request);
  if (rpc.type === 'request') return { rule: { kind: 'jsonrpc' }, awaitingId: rpc.id };
  if (rpc.type === 'notification' || rpc.type === 'batch-request' || rpc.type === 'response') return { rule: { kind: 'jsonrpc' } };
  return { rule: { kind: 'done' } };
}
