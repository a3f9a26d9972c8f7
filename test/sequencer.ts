import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Vitest's order (failed first, then slowest from its cache, else largest
 * file first), except that the packed-install project starts before anything
 * else: its three nested vitest runs must run one after another, so it is the
 * suite's critical path and finishes last unless it starts first. On a fresh
 * clone (CI) there is no cache to tell vitest so.
 */
const CRITICAL_PATH = ['test/vitest/in-your-project.test.ts'];

export default class CriticalPathFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = (f: TestSpecification) => CRITICAL_PATH.some((p) => f.moduleId.endsWith(p));
    return [...sorted.filter(first), ...sorted.filter((f) => !first(f))];
  }
}
