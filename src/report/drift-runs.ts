import type { Drift } from '../core/diagnostics/drift.js';

/**
 * Repeated drifts, for the human summary. One changed line on a screen that
 * stays up makes every later step drift with it: a reviewer needs the first
 * difference in full and how many steps repeat it, not 35 near-identical
 * diffs. Two screen drifts are "the same difference" when the same lines went
 * missing and the same lines appeared (wherever on the screen they are, and
 * whatever the unchanged rest shows). Machine output (--json) is not collapsed.
 */
export interface DriftRun {
  first: Drift;
  /** The later drifts of the run (same difference, consecutive). */
  repeats: Drift[];
}

const SCREEN_CODES = new Set(['TD1101', 'TD1102', 'TD1103']);

export function sameDifferenceKey(d: Drift): string | undefined {
  if (!SCREEN_CODES.has(d.code) || d.actual === undefined) return undefined;
  const expected = bodyLines(d.expected);
  const actual = bodyLines(d.actual);
  const gone = minus(expected, actual);
  const came = minus(actual, expected);
  return JSON.stringify([gone, came]);
}

/** Screen lines without the golden header (cursor moves with the rest) and the style layer. */
function bodyLines(screen: string): string[] {
  const lines = screen.split('\n');
  const styles = lines.indexOf('--- styles');
  return lines.slice(1, styles === -1 ? undefined : styles);
}

/** Lines of a not matched in b (as multisets), sorted. */
function minus(a: string[], b: string[]): string[] {
  const left = new Map<string, number>();
  for (const l of b) left.set(l, (left.get(l) ?? 0) + 1);
  const out: string[] = [];
  for (const l of a) {
    const n = left.get(l) ?? 0;
    if (n > 0) left.set(l, n - 1);
    else out.push(l);
  }
  return out.sort();
}

export function driftRuns(drifts: readonly Drift[]): DriftRun[] {
  const runs: DriftRun[] = [];
  let key: string | undefined;
  for (const d of drifts) {
    const k = sameDifferenceKey(d);
    const last = runs.at(-1);
    if (last && k !== undefined && k === key) last.repeats.push(d);
    else runs.push({ first: d, repeats: [] });
    key = k;
  }
  return runs;
}

/** "steps 5–39: the same difference (35 more drifts)": the steps between them that did not drift are inside the span. */
export function repeatLine(run: DriftRun): string {
  const from = run.repeats[0].pair;
  const to = run.repeats.at(-1)!.pair;
  const n = run.repeats.length;
  return `${from === to ? `step ${from}` : `steps ${from}–${to}`}: the same difference (${n} more drift${n === 1 ? '' : 's'})`;
}
