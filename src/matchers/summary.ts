import type { GoldenResult } from '../core/golden/store.js';
import { goldenPaths } from '../core/golden/paths.js';

/**
 * What this worker's goldens did in the current test file, handed to the
 * reporter (tapedeck/vitest/reporter) through the file's task meta, which sums
 * every file into one closing line per run, as vitest's "Snapshots" line.
 */
export interface GoldenTally {
  written: number;
  updated: number;
  obsolete: number;
  removed: number;
  /** `.new` candidates left for review. */
  candidates: number;
}

let written = 0;
let updated = 0;
let obsolete = 0;
let removed = 0;
const candidates = new Set<string>();
/** Goldens that did not match (with or without a candidate: on CI none is written), for the job summary. */
const mismatched = new Set<string>();

export function recordGolden(result: Pick<GoldenResult, 'status' | 'artifacts'>, golden?: string): void {
  if (result.status === 'written') written++;
  if (result.status === 'updated') updated++;
  if (golden && result.status === 'mismatch') mismatched.add(golden);
  else if (golden) {
    // A later pass of the same golden (a retried test) takes its candidate and its mismatch back.
    candidates.delete(goldenPaths(golden).candidate);
    mismatched.delete(golden);
  }
  for (const a of result.artifacts) if (a.endsWith('.new')) candidates.add(a);
}

export function recordObsolete(count: number, wereRemoved: boolean): void {
  if (wereRemoved) removed += count;
  else obsolete += count;
}

/** The `.new` candidates this file left so far. */
export function candidatePaths(): string[] {
  return [...candidates];
}

/** The goldens this file's matchers found different so far. */
export function mismatchedGoldens(): string[] {
  return [...mismatched];
}

/** The tally of the file that just ended; the next file starts from zero. */
export function takeTally(): GoldenTally {
  const t = { written, updated, obsolete, removed, candidates: candidates.size };
  written = updated = obsolete = removed = 0;
  candidates.clear();
  mismatched.clear();
  return t;
}

export function sumTallies(tallies: readonly GoldenTally[]): GoldenTally {
  const sum: GoldenTally = { written: 0, updated: 0, obsolete: 0, removed: 0, candidates: 0 };
  for (const t of tallies) for (const k of Object.keys(sum) as (keyof GoldenTally)[]) sum[k] += t[k] ?? 0;
  return sum;
}

/** "tapedeck goldens: 2 written, 1 updated, 1 obsolete, 1 candidate left (.new)". */
export function summaryLine(t: GoldenTally): string {
  const parts = [`${t.written} written`, `${t.updated} updated`];
  parts.push(t.removed > 0 ? `${t.obsolete + t.removed} obsolete (${t.removed} removed)` : `${t.obsolete} obsolete`);
  parts.push(`${t.candidates} candidate${t.candidates === 1 ? '' : 's'} left (.new)`);
  const hint = t.candidates > 0 ? ': review them with `npx tapedeck review`' : t.obsolete > 0 ? ': remove obsolete ones with vitest -u' : '';
  return `tapedeck goldens: ${parts.join(', ')}${hint}`;
}
