import { availableParallelism } from 'node:os';
import { usageError } from '../core/diagnostics/errors.js';
import type { Drift } from '../core/diagnostics/drift.js';
import { replayProtocolTape, type ProtocolReplayOptions, type TapeReplayResult } from './protocol/replay.js';
import type { TransportTarget } from './transport/replay.js';
import { AUTH_TOKEN_VAR, wireOf } from '../tape/protocol/wire.js';
import { prepareProtocolTape, type PreparedTape } from './protocol/prepare.js';
import { requireServerCommand } from './replay-defaults.js';
import { isTerminalTape } from '../tape/kind.js';
import { expandTapes, selectShard, type Shard } from './run.js';
// Terminal replay (node-pty, xterm, maybe Chromium) loads only when a .cast is in the run.
import type { TerminalReplayOptions, TerminalTapeResult } from './terminal/replay.js';
import type { TerminalPlan } from './terminal/plan.js';

/**
 * One run over protocol and terminal tapes together, as `tapedeck replay`
 * does it: every tape is read and validated first (a malformed tape or a
 * terminal tape without a command is exit 2 before anything starts), then
 * the tapes run a few at a time, each against its own fresh process.
 */
export type ProtocolTapeResult = TapeReplayResult & { kind: 'protocol' };

/** What a report reads, whatever the kind: `tape`, `kind`, `drifts`, `durationMs`, plus pairs or steps. */
export type AnyTapeResult = ProtocolTapeResult | TerminalTapeResult;

export interface ReplayTapesOptions {
  /**
   * CMD after `--`. Protocol tapes need it. Terminal tapes use their recorded
   * command, unless the run (all shards) has only terminal tapes: then CMD overrides it.
   */
  command?: readonly string[];
  protocol?: Omit<ProtocolReplayOptions, 'command'>;
  terminal?: Omit<TerminalReplayOptions, 'command'>;
  /**
   * Protocol tapes over HTTP or a Unix socket instead of stdio; `auto`: each
   * tape over the transport it was recorded on (its pairs' wire notes).
   */
  transport?: TransportTarget | { transport: 'auto'; authToken?: string };
  jobs?: number;
  shard?: Shard;
  /** Called as each tape finishes (for progress displays). */
  onTapeDone?: (result: AnyTapeResult, done: number, total: number) => void;
}

export interface ReplayTapesResult {
  tapes: AnyTapeResult[];
  driftCount: number;
  /** 0 when nothing drifted (or every drift was accepted by update), 1 otherwise. */
  exitCode: 0 | 1;
  durationMs: number;
}

export { isTerminalTape };

type Prepared = { kind: 'protocol'; tape: PreparedTape } | { kind: 'terminal'; plan: TerminalPlan };

export async function replayTapes(patterns: readonly string[], options: ReplayTapesOptions): Promise<ReplayTapesResult> {
  const started = performance.now();
  const all = await expandTapes(patterns);
  // Decided on the whole list, so every shard of one command line gives CMD the same meaning.
  const hasProtocol = all.some((p) => !isTerminalTape(p));
  const paths = selectShard(all, options.shard);
  const command = options.command && options.command.length > 0 ? options.command : undefined;
  const network = options.transport !== undefined && options.transport.transport !== 'auto' && (options.transport.url !== undefined || options.transport.socket !== undefined);
  if (paths.some((p) => !isTerminalTape(p)) && !network) requireServerCommand(command);
  const terminalCommand = hasProtocol ? undefined : command;
  // --auth-token also stands for a token the recorder found in a body (stored as a placeholder).
  const token = options.transport?.authToken;
  const tokenEnv = token === undefined ? (options.protocol?.env ?? process.env) : { [AUTH_TOKEN_VAR]: token, ...(options.protocol?.env ?? process.env) };
  const prepared: Prepared[] = [];
  for (const path of paths) {
    if (isTerminalTape(path)) {
      const { planTerminalReplay } = await import('./terminal/plan.js');
      prepared.push({ kind: 'terminal', plan: await planTerminalReplay(path, { ...options.terminal, command: terminalCommand }) });
    }
    else {
      // A secret the tape needs but the environment lacks, or an empty tape, is bad input: found before any server starts.
      prepared.push({ kind: 'protocol', tape: await prepareProtocolTape(path, { ...options.protocol, env: tokenEnv }) });
    }
  }
  const replayProtocol = async (tape: PreparedTape): Promise<ProtocolTapeResult> => {
    const choice = options.transport;
    const recordedOn = choice?.transport === 'auto' ? (tape.count > 0 ? wireOf(tape.at(0).pair) : undefined)?.transport : undefined;
    const target = choice?.transport === 'auto' ? (recordedOn ? { transport: recordedOn, authToken: choice.authToken } : undefined) : choice;
    // The network transports load only when a tape travels over one.
    // Marked in place: a spread would build the pairs the result derives only when read.
    if (target) return Object.assign(await (await import('./transport/replay.js')).replayOverTransport(tape, { ...options.protocol, command: command ?? [], target }), { kind: 'protocol' as const });
    return Object.assign(await replayProtocolTape(tape, { ...options.protocol, command: command! }), { kind: 'protocol' as const });
  };
  let done = 0;
  const results = await runPool<Prepared, AnyTapeResult>(prepared, options.jobs ?? availableParallelism(), async (item) => {
    const result: AnyTapeResult =
      item.kind === 'terminal'
        ? await (await import('./terminal/replay.js')).replayTerminal(item.plan, options.terminal)
        : await replayProtocol(item.tape);
    options.onTapeDone?.(result, ++done, prepared.length);
    return result;
  });
  const driftCount = results.reduce((n, r) => n + r.drifts.length, 0);
  const unaccepted = results.reduce((n, r) => n + unacceptedDrifts(r).length, 0);
  return { tapes: results, driftCount, exitCode: unaccepted > 0 ? 1 : 0, durationMs: performance.now() - started };
}

/** Drifts an update did not accept: a timeout or a crash is never an answer to accept. */
export function unacceptedDrifts(result: AnyTapeResult | TapeReplayResult): Drift[] {
  if ('kind' in result && result.kind === 'terminal') return result.updated ? [] : result.drifts;
  const protocol = result as TapeReplayResult;
  return protocol.updatedPairs > 0 ? protocol.drifts.filter((d) => d.code === 'TD1002' || d.code === 'TD1003') : protocol.drifts;
}

/** Runs `work` over `items` with at most `jobs` at once, keeping the results in order. */
export async function runPool<T, R>(items: readonly T[], jobs: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, jobs), items.length) }, worker));
  return results;
}

export interface ReplayRunOptions extends ProtocolReplayOptions {
  jobs?: number;
  shard?: Shard;
}

/** Protocol tapes only, each against its own fresh server: replayTapes with one kind. */
export async function replayProtocolTapes(patterns: readonly string[], options: ReplayRunOptions): Promise<ReplayTapesResult> {
  const { jobs, shard, command, ...protocol } = options;
  const terminal = patterns.find(isTerminalTape);
  if (terminal) throw usageError(`${terminal} is a terminal tape; use replayTapes for a mix of kinds`);
  return replayTapes(patterns, { command, protocol, jobs, shard });
}
