import { existsSync } from 'node:fs';
import { TapedeckError, usageError } from '../core/diagnostics/errors.js';

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
    const { glob } = await import('tinyglobby'); // only a pattern with wildcards needs it
    // A tape's notes file (tape/protocol/notes.ts) rides with its tape; a glob never takes it for one.
    const matches = (await glob(pattern, { onlyFiles: true, expandDirectories: false })).filter((m) => !/\.notes(\.new)?$/.test(m));
    if (matches.length === 0) throw new TapedeckError('TD2002', `no tape matches ${JSON.stringify(pattern)}`);
    for (const m of matches) out.add(m);
  }
  return [...out].sort();
}

/** The tapes one shard of n owns: every n-th of the sorted list, so shards stay balanced. */
export function selectShard<T>(items: readonly T[], shard?: Shard): T[] {
  if (!shard) return [...items];
  return items.filter((_, i) => i % shard.count === shard.index - 1);
}
