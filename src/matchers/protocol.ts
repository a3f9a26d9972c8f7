import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseBoundary, type Boundary } from '../core/boundary.js';
import { loadConfig } from '../core/config.js';
import { Normaliser, parseFilter } from '../core/normalise.js';
import { formatPair, readProtocolTape, type ProtocolTape } from '../tape/protocol-tape.js';
import { replayProtocolTape } from '../replayer/protocol.js';
import { unacceptedDrifts } from '../replayer/replay-tapes.js';
import { checkGolden } from '../core/golden-store.js';
import { isTerminalTape } from '../tape/kind.js';
import { replayCastCleanly } from './terminal-replay.js';
import { formatDrifts, replayVerdict } from './format.js';
import { nextGoldenPath, updateModeFor, usedGoldens, type MatcherStateLike } from './context.js';

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
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

function settings(options: ProtocolMatcherOptions) {
  const config = loadConfig(undefined, options.cwd);
  return {
    boundary: typeof options.boundary === 'string' ? parseBoundary(options.boundary) : options.boundary ?? config.boundary,
    timeoutMs: options.timeoutMs ?? config.timeoutMs,
    normaliser: new Normaliser({ ignore: [...config.ignore, ...(options.ignore ?? [])], filters: [...config.filters, ...(options.filter ?? []).map(parseFilter)] }),
    env: options.env,
    cwd: options.cwd,
  };
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
  usedGoldens.add(resolve(received)); // a tape a test replays is in use, wherever it lives
  if (isTerminalTape(received)) return replayCastCleanly(this, received, command, options);
  assertCommand(command, 'toReplayCleanly');
  const update = updateModeFor(this) === 'all';
  const result = await replayProtocolTape(received, { command, update, ...settings((options ?? {}) as ProtocolMatcherOptions) });
  return replayVerdict(received, unacceptedDrifts(result), `${result.pairs.length} pairs`);
}

/**
 * `await expect(['node', 'server.js']).toMatchExchange(['{"op":"check"}'])`:
 * sends the requests to a fresh server and compares the responses with a
 * protocol-tape golden (goldens/<test file>/<test>.ndjson, seed 000 format),
 * written when missing by the usual update rules.
 */
export async function toMatchExchange(this: State, received: unknown, requests: string | string[], options: ProtocolMatcherOptions = {}) {
  assertCommand(received, 'toMatchExchange');
  if (this.isNot) throw new Error('toMatchExchange cannot be negated');
  const list = (Array.isArray(requests) ? requests : [requests]).map((r) => r.trim()).filter((r) => r !== '');
  if (list.length === 0) throw new TypeError('toMatchExchange: give at least one request line');
  const { path, displayPath } = nextGoldenPath(this, 'ndjson');
  const mode = updateModeFor(this);
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
  const verdict = checkGolden({
    path,
    displayPath,
    actual: live,
    mode,
    compare: () =>
      sameRequests
        ? { pass: result.drifts.length === 0, message: `responses differ from golden ${displayPath}\n\n${formatDrifts(result.drifts)}` }
        : { pass: false, message: `the requests differ from those in golden ${displayPath}` },
  });
  return { pass: verdict.pass, message: () => verdict.message };
}
