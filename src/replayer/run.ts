import { availableParallelism } from 'node:os';
import { glob } from 'tinyglobby';
import { existsSync } from 'node:fs';
import { TapedeckError, usageError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { readProtocolTape, type ProtocolTape } from '../core/tape.js';
import { replayProtocolTape, type ProtocolReplayOptions, type TapeReplayResult } from './protocol.js';

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

export function parseShard(spec: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(spec);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) throw usageError(`--shard expects i/n with 1 <= i <= n, got ${JSON.stringify(spec)}`);
  return { index, count };
}

/** Paths and globs → sorted, unique tape paths. A pattern that matches nothing is an error. */
export async function expandTapes(patterns: readonly string[]): Promise<string[]> {
  const out = new Set<string>();
  for (const pattern of patterns) {
    if (existsSync(pattern) || !/[*?[\]{}]/.test(pattern)) {
      out.add(pattern);
      continue;
    }
    const matches = await glob(pattern, { onlyFiles: true, expandDirectories: false });
    if (matches.length === 0) throw new TapedeckError('TD2002', `no tape matches ${JSON.stringify(pattern)}`, { exitCode: ExitCode.usage });
    for (const m of matches) out.add(m);
  }
  return [...out].sort();
}

/** The tapes one shard of n owns: every n-th of the sorted list, so shards stay balanced. */
export function selectShard<T>(items: readonly T[], shard?: Shard): T[] {
  if (!shard) return [...items];
  return items.filter((_, i) => i % shard.count === shard.index - 1);
}

export interface ReplayRunOptions extends ProtocolReplayOptions {
  jobs?: number;
  shard?: Shard;
}

export interface ReplayRunResult {
  tapes: TapeReplayResult[];
  driftCount: number;
  /** 0 when nothing drifted (or every drift was accepted by --update), 1 otherwise. */
  exitCode: 0 | 1;
  durationMs: number;
}

/**
 * Replays many protocol tapes, each against its own fresh server, a few at a
 * time. Every tape is read and validated before any server starts, so a
 * malformed tape is reported (exit 2) without half a run.
 */
export async function replayProtocolTapes(patterns: readonly string[], options: ReplayRunOptions): Promise<ReplayRunResult> {
  const started = performance.now();
  const paths = selectShard(await expandTapes(patterns), options.shard);
  const tapes: ProtocolTape[] = [];
  for (const p of paths) tapes.push(await readProtocolTape(p));
  const jobs = Math.max(1, options.jobs ?? availableParallelism());
  const results: TapeReplayResult[] = new Array(tapes.length);
  let next = 0;
  const worker = async () => {
    while (next < tapes.length) {
      const i = next++;
      results[i] = await replayProtocolTape(tapes[i], options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, tapes.length) }, worker));
  const unaccepted = results.reduce((n, r) => n + (r.updatedPairs > 0 ? r.drifts.filter((d) => d.code === 'TD1002' || d.code === 'TD1003').length : r.drifts.length), 0);
  const driftCount = results.reduce((n, r) => n + r.drifts.length, 0);
  return { tapes: results, driftCount, exitCode: unaccepted > 0 ? 1 : 0, durationMs: performance.now() - started };
}
