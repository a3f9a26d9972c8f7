import { sumTallies, summaryLine, type GoldenTally } from './summary.js';

/** Provided to the tests when the reporter runs, so workers leave the closing line to it. */
export const REPORTER_KEY = 'tapedeck:reporter';

/** The bits of vitest's reporter API the closing line uses. */
interface ModuleLike {
  meta(): Record<string, unknown>;
}
interface VitestLike {
  projects?: { provide?: (key: string, value: unknown) => void }[];
}

/**
 * `reporters: ['default', 'tapedeck/vitest/reporter']`: one closing line per
 * run (and per watch-mode rerun) with what tapedeck did to goldens, summed
 * over every test file of every project.
 */
export default class TapedeckReporter {
  onInit(ctx: VitestLike): void {
    for (const project of ctx.projects ?? []) project.provide?.(REPORTER_KEY, true);
  }

  onTestRunEnd(modules: ReadonlyArray<ModuleLike>): void {
    const tallies = modules.map((m) => m.meta().tapedeck as GoldenTally | undefined).filter((t): t is GoldenTally => t !== undefined);
    if (tallies.length === 0) return;
    process.stdout.write(`\n ${summaryLine(sumTallies(tallies))}\n`);
  }
}
