import { relative } from 'node:path';
import { goldenPaths } from '../core/golden/paths.js';
import { appendStepSummary, summaryMarkdown } from '../report/step-summary.js';
import { sumTallies, summaryLine, type GoldenTally } from './summary.js';

/** Provided to the tests when the reporter runs, so workers leave the closing line to it. */
export const REPORTER_KEY = 'tapedeck:reporter';

/** The bits of vitest's reporter API the closing line uses. */
interface ModuleLike {
  meta(): Record<string, unknown>;
  moduleId?: string;
}
/** vitest's SnapshotSummary, the numbers its "Snapshots" line and the JSON report's `snapshot` show. */
interface SnapshotSummaryLike {
  added: number;
  updated: number;
  unmatched: number;
  unchecked: number;
  total: number;
  failure: boolean;
}
interface VitestLike {
  projects?: { provide?: (key: string, value: unknown) => void }[];
  snapshot?: { summary?: SnapshotSummaryLike };
}

/** Adds a file's golden counts to vitest's snapshot summary: written as "written", rewritten as "updated", candidates as "failed", obsolete as "obsolete". */
export function addToSnapshotSummary(summary: SnapshotSummaryLike | undefined, t: GoldenTally): void {
  if (!summary) return;
  summary.added += t.written;
  summary.updated += t.updated;
  summary.unmatched += t.candidates;
  summary.unchecked += t.obsolete + t.removed;
  summary.total += t.written + t.updated + t.candidates;
  if (t.candidates > 0) summary.failure = true;
}

/**
 * `reporters: ['default', 'tapedeck/vitest/reporter']`: tapedeck's golden
 * counts go into vitest's own snapshot summary (the "Snapshots" line, the JSON
 * report's `snapshot`), and one closing line per run (and per watch-mode
 * rerun) goes to stderr, summed over every test file of every project.
 */
export default class TapedeckReporter {
  private vitest?: VitestLike;

  onInit(ctx: VitestLike): void {
    this.vitest = ctx;
    for (const project of ctx.projects ?? []) project.provide?.(REPORTER_KEY, true);
  }

  onTestModuleEnd(module: ModuleLike): void {
    const tally = module.meta().tapedeck as GoldenTally | undefined;
    if (tally) addToSnapshotSummary(this.vitest?.snapshot?.summary, tally);
  }

  onTestRunEnd(modules: ReadonlyArray<ModuleLike>): void {
    const tallies = modules.map((m) => m.meta().tapedeck as GoldenTally | undefined).filter((t): t is GoldenTally => t !== undefined);
    if (tallies.length === 0) return;
    // stderr: stdout may carry a machine-read report (--reporter=json | jq).
    process.stderr.write(`\n ${summaryLine(sumTallies(tallies))}\n`);
    if (process.env.GITHUB_STEP_SUMMARY) {
      // Under GitHub Actions: a drift table of the goldens left for review, beside vitest's own annotations.
      const lists = tallies as ReadonlyArray<GoldenTally & { pending?: string[]; drifted?: string[] }>;
      const pending = new Set(lists.flatMap((t) => t.pending ?? []));
      const rows = lists
        .flatMap((t) => t.drifted ?? [])
        .map((golden) => ({
          subject: relative(process.cwd(), golden),
          change: pending.has(goldenPaths(golden).candidate) ? 'differs from its golden: candidate left as .new' : 'differs from its golden (no candidate written: on CI, or update mode none)',
        }));
      const t = sumTallies(tallies);
      const clean = `${t.written} written, ${t.updated} updated, ${t.obsolete + t.removed} obsolete; every golden matched`;
      appendStepSummary(summaryMarkdown('tapedeck goldens (vitest)', rows, clean, process.env.TAPEDECK_REPORT));
    }
  }
}
