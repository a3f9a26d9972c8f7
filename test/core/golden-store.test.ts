import { describe, expect, test } from 'vitest';
import { goldenFile, goldenFolder, goldenPaths, safeName } from '../../src/core/golden/paths.js';
import { decideGolden, GoldenStore, type GoldenIO } from '../../src/core/golden/store.js';
import { resolveUpdatePolicy } from '../../src/core/config/ci.js';
import { assertionTimeout } from '../../src/matchers/retry.js';
import { summaryLine, sumTallies } from '../../src/matchers/summary.js';

/** Pure units of the golden store: naming, the decision table, the store over an in-memory IO. */
function memoryIO(files: Record<string, string> = {}): GoldenIO & { files: Record<string, string> } {
  return {
    files,
    read: (p) => (p in files ? Buffer.from(files[p]) : undefined),
    write: (p, d) => void (files[p] = d.toString()),
    remove: (p) => void delete files[p],
  };
}

describe('golden names', () => {
  test('readable names stay; Unicode letters are kept', () => {
    expect(safeName('bash prints a banner')).toBe('bash-prints-a-banner');
    expect(safeName('menu 日本')).toBe('menu-日本');
    expect(safeName('menu 中文')).toBe('menu-中文');
    expect(safeName('menu > opens')).toBe('menu__opens');
  });

  test('a name that loses anything on the way gets a hash of the full name, so names never merge', () => {
    const names = ['menu: plus', 'menu plus', 'menu-plus', 'menu  plus', 'menu/plus', 'Menu plus', 'menu plus 2', 'x.actual', '.hidden', 'con', 'a'.repeat(300), '', '🙂'];
    const safe = names.map((n) => safeName(n));
    expect(new Set(safe).size).toBe(names.length);
    expect(safeName('menu: plus')).toMatch(/^menu-plus-[0-9a-f]{8}$/);
    expect(safeName('menu plus 2')).toMatch(/^menu-plus-2-[0-9a-f]{8}$/); // never read as counter 2 of "menu plus"
    expect(Buffer.byteLength(safeName('a'.repeat(300)))).toBeLessThanOrEqual(170);
    for (const s of safe) expect(s).toMatch(/^[^/\\:*?"<>|]+$/);
  });

  test('a chosen name is used as given when it is already safe', () => {
    expect(safeName('mismatch-probe', { chosen: true })).toBe('mismatch-probe');
    expect(safeName('a/b', { chosen: true })).toMatch(/-[0-9a-f]{8}$/);
  });

  test('the test file keeps its whole path, so ui.test.ts and ui.spec.ts, a b and a-b differ', () => {
    const folders = ['test/ui.test.ts', 'test/ui.spec.ts', 'a b.test.ts', 'a-b.test.ts'].map((f) => goldenFolder('/p/goldens', '/p', f));
    expect(new Set(folders).size).toBe(4);
    expect(folders[0]).toBe('/p/goldens/test/ui.test.ts');
    expect(goldenFolder('/p/goldens', '/p', '/elsewhere/x.test.ts')).toMatch(/^\/p\/goldens\/_outside-[0-9a-f]{8}$/);
    expect(goldenFile('/g', 'menu plus', 'txt', 2)).toBe('/g/menu-plus-2.txt');
  });

  test('every path of a golden comes from one place', () => {
    expect(goldenPaths('/g/shot.png')).toEqual({ golden: '/g/shot.png', candidate: '/g/shot.png.new', actualImage: '/g/shot.actual.png', diffImage: '/g/shot.diff.png' });
  });
});

describe('the one decision', () => {
  test('modes against golden states', () => {
    expect(decideGolden('none', 'missing')).toMatchObject({ status: 'missing', writeGolden: false, clean: false });
    expect(decideGolden('new', 'missing')).toMatchObject({ status: 'written', writeGolden: true, clean: true });
    expect(decideGolden('new', 'differs')).toMatchObject({ status: 'mismatch', writeCandidate: true });
    expect(decideGolden('none', 'differs')).toMatchObject({ status: 'mismatch', writeCandidate: false });
    expect(decideGolden('all', 'differs')).toMatchObject({ status: 'updated', writeGolden: true, clean: true });
    expect(decideGolden('new', 'matched')).toMatchObject({ status: 'matched', clean: true });
  });

  test('the store trusts the policy it is given (it never reads CI itself) and cleans stale artifacts', () => {
    const io = memoryIO({ '/g/a.png': 'old', '/g/a.png.new': 'cand', '/g/a.actual.png': 'x', '/g/a.diff.png': 'y' });
    const ci = new GoldenStore(resolveUpdatePolicy(undefined, { CI: 'true' }), io, '/');
    const missing = ci.check({ path: '/g/b.txt', actual: 'b', compare: () => ({ pass: false }) });
    expect(missing.message).toContain('on CI (CI is set) goldens are never written');
    expect(io.files['/g/b.txt']).toBeUndefined();
    const local = new GoldenStore({ mode: 'new' }, io, '/');
    const differs = local.check({ path: '/g/a.png', actual: 'new', compare: () => ({ pass: false, message: 'differs' }) });
    expect(differs.artifacts).toEqual(['/g/a.png.new']);
    expect(io.files['/g/a.png.new']).toBe('new');
    const rewritten = new GoldenStore({ mode: 'all' }, io, '/').check({ path: '/g/a.png', actual: 'new', compare: () => ({ pass: false }) });
    expect(rewritten.status).toBe('updated');
    expect(io.files).toEqual({ '/g/a.png': 'new' }); // the candidate and the stale images went with the rewrite
  });
});

test('the default assertion timeout ends before the test does', () => {
  const start = 1_000_000;
  expect(assertionTimeout(undefined, undefined)).toBe(5000);
  expect(assertionTimeout(1234, { id: 't', name: 't', timeout: 5000, result: { startTime: start } }, start)).toBe(1234);
  expect(assertionTimeout(undefined, { id: 't', name: 't', timeout: 5000, result: { startTime: start } }, start + 1000)).toBe(3500);
  expect(assertionTimeout(undefined, { id: 't', name: 't', timeout: 30_000, result: { startTime: start } }, start)).toBe(5000);
});

test('the closing line sums every file', () => {
  const t = sumTallies([
    { written: 2, updated: 0, obsolete: 1, removed: 0, candidates: 1 },
    { written: 1, updated: 1, obsolete: 0, removed: 0, candidates: 0 },
  ]);
  expect(summaryLine(t)).toBe('tapedeck goldens: 3 written, 1 updated, 1 obsolete, 1 candidate left (.new): review them with `npx tapedeck review`');
});

test('the update policy: TAPEDECK_UPDATE wins, then vitest -u, then CI', async () => {
  const { updatePolicyFor } = await import('../../src/matchers/context.js');
  const vitestAll = { snapshotState: { snapshotUpdateState: 'all' as const } };
  expect(updatePolicyFor({}, { TAPEDECK_UPDATE: 'all', CI: 'true' }).mode).toBe('all');
  expect(updatePolicyFor(vitestAll, { CI: 'true' }).mode).toBe('all');
  expect(updatePolicyFor({}, { CI: 'true' })).toEqual({ mode: 'none', reason: 'on CI (CI is set) goldens are never written' });
  expect(updatePolicyFor({ snapshotState: { snapshotUpdateState: 'new' } }, {}).mode).toBe('new');
  expect(updatePolicyFor(vitestAll, { TAPEDECK_UPDATE: 'none' }).mode).toBe('none');
});

test('a partial or failed run proves nothing about obsolete goldens', async () => {
  const { allTestsRanAndPassed } = await import('../../src/matchers/obsolete.js');
  const passed = { type: 'test', mode: 'run', result: { state: 'pass' } };
  expect(allTestsRanAndPassed({ type: 'suite', tasks: [passed, passed] })).toBe(true);
  expect(allTestsRanAndPassed({ type: 'suite', tasks: [passed, { type: 'test', mode: 'skip' }] })).toBe(false);
  expect(allTestsRanAndPassed({ type: 'suite', tasks: [passed, { type: 'test', mode: 'run', result: { state: 'fail' } }] })).toBe(false);
});
