import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { vitestProject, type VitestProject, type VitestRun } from '../helpers/vitest-project.js';

/**
 * Goldens always belong to the test that made them (issue 27.1): every vitest
 * mode that runs tests concurrently (test.concurrent, describe.concurrent,
 * sequence.concurrent), with the global and the context `expect`. Each test
 * draws its own name; the goldens must carry it, in the file of that test,
 * whatever order the tests finish in, and a -u run must remove none of them.
 * A golden whose test cannot be told fails loudly, as vitest's toMatchSnapshot
 * does without a test context, and removes nothing.
 * Several runs in the suite; TAPEDECK_SOAK=1 runs 20.
 */
const RUNS = process.env.TAPEDECK_SOAK === '1' ? 20 : 1;
const NAMES = ['alpha', 'beta', 'gamma', 'delta'];

/** A test file of one mode: each test's program prints its own name after a different delay, so they finish out of order. */
function testFile(mode: 'test' | 'describe' | 'sequence'): string {
  const testFn = mode === 'test' ? 'test.concurrent' : 'test';
  const body = NAMES.map(
    (n, i) => `  ${testFn}('${n}', async (ctx) => {
    const e = ${i % 2 === 0 ? 'expect' : 'ctx.expect'}; // the global expect, and the context's
    const term = spawnTerminal('sh', ['-c', 'sleep 0.${(NAMES.length - i) * 7}; printf "I am ${n}\\\\n"; exec cat'], { rows: 3, cols: 24 });
    await e(term).toMatchScreen();
    await e(term).toContainText('I am ${n}');
    await e(term).toMatchScreen({ name: '${n}-named' });
  });`,
  );
  const open = mode === 'describe' ? "describe.concurrent('suite', () => {" : "describe('suite', () => {";
  return `import { describe, expect, test } from 'vitest';\nimport { spawnTerminal } from 'tapedeck';\n${open}\n${body.join('\n')}\n});\n`;
}

const CONFIG = `import { defineConfig } from 'vitest/config';
export default defineConfig({ test: { setupFiles: ['tapedeck/vitest'], testTimeout: 20_000, projects: [
  { extends: true, test: { name: 'plain', include: ['test/plain/*.test.ts'] } },
  { extends: true, test: { name: 'seq', include: ['test/seq/*.test.ts'], sequence: { concurrent: true } } },
  { extends: true, test: { name: 'ownerless', include: ['test/ownerless/*.test.ts'] } },
] } });
`;

/** A golden matched in a hook: no test to own it. A golden committed beside it must survive every run. */
const OWNERLESS = `import { existsSync } from 'node:fs';
import { beforeAll, expect, test } from 'vitest';
import { spawnTerminal } from 'tapedeck';
beforeAll(async () => {
  const term = spawnTerminal('sh', ['-c', 'printf "from a hook\\\\n"; exec cat'], { rows: 3, cols: 24 });
  await expect(term).toMatchScreen();
});
test('kept', async () => {
  expect(existsSync('goldens/test/ownerless/hook.test.ts/committed.txt')).toBe(true);
});
`;
const COMMITTED = 'goldens/test/ownerless/hook.test.ts/committed.txt';

const FILES: Record<string, string> = {
  'vitest.config.ts': CONFIG,
  'test/plain/test-concurrent.test.ts': testFile('test'),
  'test/plain/describe-concurrent.test.ts': testFile('describe'),
  'test/seq/sequence-concurrent.test.ts': testFile('sequence'),
  'test/ownerless/hook.test.ts': OWNERLESS,
  [COMMITTED]: 'a golden committed earlier\n',
};
const CONCURRENT_FILES = Object.keys(FILES).filter((f) => f.endsWith('.test.ts') && !f.startsWith('test/ownerless/'));

/** What every run must leave: per file, each test's two goldens, holding that test's name. */
function expectGoldens(p: VitestProject): void {
  const expected = CONCURRENT_FILES.flatMap((f) => NAMES.flatMap((n) => [`${f}/suite__${n}.txt`, `${f}/${n}-named.txt`])).sort();
  expect(p.files('goldens')).toEqual([...expected, COMMITTED.slice('goldens/'.length)].sort());
  expect(p.read(COMMITTED)).toBe(FILES[COMMITTED]);
  for (const golden of expected) {
    const name = /(?:suite__)?([a-z]+?)(?:-named)?\.txt$/.exec(golden)![1];
    expect(p.read(`goldens/${golden}`), golden).toContain(`I am ${name}`);
  }
}

/** Every concurrent test passed; the ownerless file failed loudly, naming why. */
function expectVerdicts(r: VitestRun): void {
  const files = r.report?.testResults ?? [];
  const concurrent = files.filter((f) => !f.name.includes('/ownerless/')).flatMap((f) => f.assertionResults);
  expect(concurrent.map((a) => a.status), `${r.stdout}\n${r.stderr}`).toEqual(Array(3 * NAMES.length).fill('passed'));
  expect(r.report?.success).toBe(false);
  expect(`${r.stdout}${r.stderr}`).toMatch(/toMatchScreen cannot tell which test this golden belongs to/);
}

describe('goldens under every concurrent mode, and one no test owns', () => {
  let p: VitestProject;
  beforeAll(() => {
    p = vitestProject(FILES, 'owner');
  });
  afterAll(() => p.remove());

  test(`written, compared and rewritten under their own test's name, ${RUNS} rounds; the ownerless one fails loudly, writes and removes nothing, also under -u`, { timeout: 300_000 + 240_000 * RUNS }, async () => {
    const first = await p.vitest([]);
    expectVerdicts(first);
    expectGoldens(p);
    // Each round: compared, then rewritten with -u (which removes obsolete goldens: a misfiled one would take a real one with it).
    for (let round = 0; round < RUNS; round++) {
      for (const args of [[], ['-u']]) {
        const r = await p.vitest(args);
        expectVerdicts(r);
        expect(`${r.stdout}${r.stderr}`).not.toMatch(/obsolete|\d+ (written|updated|removed)/); // nothing written, updated or removed
        expectGoldens(p);
      }
    }
  });
});
