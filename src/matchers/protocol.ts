import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Boundary } from '../core/framing/boundary.js';
import { resolveReplaySettings } from '../replayer/settings.js';
import { formatPair, readProtocolTape, type ProtocolTape } from '../tape/protocol/tape.js';
import { replayProtocolTape } from '../replayer/protocol/replay.js';
import { prepareProtocolTape } from '../replayer/protocol/prepare.js';
import type { TransportTarget } from '../replayer/transport/replay.js';
import { wireOf } from '../tape/protocol/wire.js';
import { unacceptedDrifts } from '../replayer/replay-tapes.js';
import { GoldenStore } from '../core/golden/store.js';
import { TapedeckError } from '../core/diagnostics/errors.js';
import { isTerminalTape } from '../tape/kind.js';
import { replayCastCleanly } from './terminal-replay.js';
import { formatDrifts, replayVerdict } from './format.js';
import { displayPath as shown, goldenOwner, matcherDefaults, nextGoldenPath, projectRoot, updatePolicyFor, usedGoldens, type MatcherStateLike } from './context.js';
import { recordGolden } from './summary.js';

interface State extends MatcherStateLike {
  isNot: boolean;
}

export interface ProtocolMatcherOptions {
  boundary?: Boundary | string;
  timeoutMs?: number;
  /** JSONPaths ignored on both sides (added to tapedeck.config.json's). */
  ignore?: string[];
  /** "REGEX=REPLACEMENT" filters (added to tapedeck.config.json's). */
  filter?: string[];
  /** Compare JSON objects whatever their key order. */
  ignoreKeyOrder?: boolean;
  maxResponseBytes?: number;
  /** Seed 000 single-shot servers: one request per fresh process, stdin closed. */
  singleShot?: boolean;
  /** A shell command run in the tape's fresh scratch directory ({{tapedeck.tmpdir}}) first. */
  setup?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * toReplayCleanly over HTTP or a Unix socket (the command then takes
   * `{{port}}`/`{{socket}}`); by default, the transport the tape was recorded on.
   */
  transport?: TransportTarget;
}

function settings(options: ProtocolMatcherOptions) {
  const { boundary, timeoutMs, normaliser, maxResponseBytes } = resolveReplaySettings(options);
  return { boundary, timeoutMs, normaliser, maxResponseBytes, singleShot: options.singleShot, setup: options.setup, env: options.env, cwd: options.cwd };
}

function assertCommand(command: unknown, matcher: string): asserts command is string[] {
  if (!Array.isArray(command) || command.length === 0 || !command.every((c) => typeof c === 'string')) {
    throw new TypeError(`${matcher}: expected the server command as an array of strings, like ['node', 'server.js']`);
  }
}

/**
 * `await expect('goldens/agent.ndjson').toReplayCleanly(['node', 'server.js'])`:
 * replays a protocol tape against a fresh server, as `tapedeck replay` does.
 * `await expect('goldens/vim.cast').toReplayCleanly()`: replays a terminal
 * tape against its recorded command (or the one given).
 * Under -u (update mode all) drifted pairs are rewritten, and terminal tapes
 * re-recorded, instead of failing.
 */
export async function toReplayCleanly(this: State, received: unknown, command?: unknown, options?: unknown) {
  if (typeof received !== 'string') throw new TypeError('toReplayCleanly: expected the path of a tape (.ndjson or .cast)');
  // Relative tapes are found from the vitest project's root, as goldens are, not from the current directory.
  const tape = resolve(projectRoot(this.testPath), received);
  if (!existsSync(tape)) {
    throw new TapedeckError('TAPE_NOT_FOUND', `toReplayCleanly: tape ${shown(tape)} does not exist (record it with \`tapedeck record\`, or check the path)`, { details: { tape } });
  }
  usedGoldens.add(tape); // a tape a test replays is in use, wherever it lives
  if (isTerminalTape(tape)) return replayCastCleanly(this, tape, command, options);
  assertCommand(command, 'toReplayCleanly');
  const policy = updatePolicyFor(this);
  const opts = (options ?? {}) as ProtocolMatcherOptions;
  const base = { command, update: policy.mode === 'all', writePending: policy.mode === 'new', ...settings(opts) };
  // Read once: the first pair says the transport it was recorded on (unless options.transport says otherwise).
  const prepared = await prepareProtocolTape(tape, base);
  const recordedOn = (prepared.count > 0 ? wireOf(prepared.at(0).pair) : undefined)?.transport;
  const target = opts.transport ?? (recordedOn ? { transport: recordedOn } : undefined);
  const result = target ? await (await import('../replayer/transport/replay.js')).replayOverTransport(prepared, { ...base, target }) : await replayProtocolTape(prepared, base);
  recordGolden({ status: result.updatedPairs > 0 ? 'updated' : result.pendingPath ? 'mismatch' : 'matched', artifacts: result.pendingPath ? [result.pendingPath] : [] }, tape);
  return replayVerdict(shown(tape), unacceptedDrifts(result), `${result.pairCount} pairs`, result.pendingPath);
}

/**
 * `await expect(['node', 'server.js']).toMatchExchange(['{"op":"check"}'])`:
 * sends the requests to a fresh server and compares the responses with a
 * protocol-tape golden (goldens/<test file>/<test>.ndjson, seed 000 format),
 * written when missing by the usual update rules.
 */
export async function toMatchExchange(this: State, received: unknown, requests: string | string[], given: ProtocolMatcherOptions = {}) {
  const options: ProtocolMatcherOptions = { ...matcherDefaults<ProtocolMatcherOptions>(this.testPath, 'toMatchExchange'), ...given };
  assertCommand(received, 'toMatchExchange');
  if (this.isNot) throw new Error('toMatchExchange cannot be negated');
  const list = (Array.isArray(requests) ? requests : [requests]).map((r) => r.trim()).filter((r) => r !== '');
  if (list.length === 0) throw new TypeError('toMatchExchange: give at least one request line');
  const { path, displayPath } = nextGoldenPath(this, 'ndjson', undefined, goldenOwner(this, 'toMatchExchange'));
  const store = new GoldenStore(updatePolicyFor(this));
  const s = settings(options);

  // The golden's own requests when they are the same, so its responses are the expectation.
  let golden: ProtocolTape | undefined;
  if (existsSync(path)) golden = await readProtocolTape(path);
  const sameRequests = golden !== undefined && golden.pairs.length === list.length && golden.pairs.every((p, i) => p.request === list[i]);
  const tape: ProtocolTape = sameRequests
    ? golden!
    : { path, pairs: list.map((request, i) => ({ request, response: '', line: i + 1, byteStart: 0, byteEnd: 0, raw: formatPair(request, '') })) };
  const result = await replayProtocolTape(tape, { command: received, ...s });
  const broken = result.drifts.filter((d) => d.code === 'TD1002' || d.code === 'TD1003');
  if (broken.length > 0) return { pass: false, message: () => `the server did not answer every request\n\n${formatDrifts(broken)}` };
  const live = `${result.pairs.map((p) => formatPair(p.request, p.actual ?? '')).join('\n')}\n`;
  const verdict = store.check({
    path,
    displayPath,
    actual: live,
    compare: () =>
      sameRequests
        ? { pass: result.drifts.length === 0, message: `responses differ from golden ${displayPath}\n\n${formatDrifts(result.drifts)}` }
        : { pass: false, message: `the requests differ from those in golden ${displayPath}` },
  });
  recordGolden(verdict, path);
  return { pass: verdict.pass, message: () => verdict.message };
}
