import { existsSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { isCI, updateModeFromEnv, type UpdatePolicy } from '../core/config/ci.js';
import { loadConfig } from '../core/config/config.js';
import { TapedeckError } from '../core/diagnostics/errors.js';
import { goldenFile, goldenFolder } from '../core/golden/paths.js';
import { defaultGoldenRoot } from '../core/golden/paths.js';
import { ownerOf, terminalOwner } from '../session/owner.js';

/** The running test as vitest hands it to a matcher (`this.task`) or a hook. */
export interface TaskLike {
  id: string;
  name: string;
  fullTestName?: string;
  timeout?: number;
  result?: { startTime?: number };
  meta?: object;
  type?: string;
  concurrent?: boolean;
  file?: { filepath?: string };
  suite?: { name: string; suite?: unknown; type?: string };
}

/** The parts of vitest's matcher `this` (MatcherState) tapedeck reads. */
export interface MatcherStateLike {
  testPath?: string;
  currentTestName?: string;
  isNot?: boolean;
  task?: TaskLike;
  snapshotState?: { readonly snapshotUpdateState?: 'all' | 'new' | 'none' };
}

/** Goldens each test has taken so far, for the -2, -3 counter; per test, so concurrent tests never share one. */
const counters = new Map<string, Map<string, number>>();
/** Which test took each golden path (lower-cased: macOS and Windows fold case), to fail on a collision. */
const owners = new Map<string, { test: string; name: string }>();
/** Every golden path used in this worker (for the obsolete-golden report). */
export const usedGoldens = new Set<string>();

/** The test a golden belongs to: its file, its full name (as vitest's currentTestName) and its id. */
export interface GoldenOwner {
  testPath: string;
  testName: string;
  key: string;
  task?: TaskLike;
}

function isTest(t: unknown): t is TaskLike {
  return typeof t === 'object' && t !== null && typeof (t as TaskLike).id === 'string' && typeof (t as TaskLike).name === 'string';
}

function fullName(task: TaskLike): string {
  if (task.fullTestName !== undefined) return task.fullTestName;
  const names = [task.name];
  for (let s = task.suite; s && s.type !== 'file' && s.name; s = s.suite as TaskLike['suite']) names.unshift(s.name);
  return names.join(' > ');
}

/** Goldens whose test could not be told (file paths): the obsolete report never removes anything in their folders. */
export const ownerlessFiles = new Set<string>();

/**
 * Which test an assertion belongs to, never a guess: the test whose async
 * context is asserting (each test runs inside its own owner, see index.ts),
 * else the test that spawned the subject terminal, else vitest's current test
 * when no test runs beside it. Under concurrency with none of these, fails as
 * vitest's toMatchSnapshot does without a test context, instead of filing the
 * golden under another test's name.
 */
export function goldenOwner(ctx: MatcherStateLike, matcher: string, subject?: object): GoldenOwner {
  const asserting = terminalOwner.getStore();
  const spawner = subject ? ownerOf(subject) : undefined;
  const current = ctx.task && !ctx.task.concurrent ? ctx.task : undefined;
  const task = [asserting, spawner, current].find(isTest);
  if (task) return { testPath: task.file?.filepath ?? ctx.testPath ?? 'unknown-test-file', testName: fullName(task), key: task.id, task };
  if (ctx.testPath) ownerlessFiles.add(ctx.testPath);
  throw new TapedeckError(
    'GOLDEN_OWNER_UNKNOWN',
    `${matcher} cannot tell which test this golden belongs to: ${ctx.task?.concurrent ? 'tests run concurrently and' : 'there is no running test, and'} the terminal was not spawned inside a test. ` +
      'Spawn the terminal inside the test (or a beforeEach), or use the test context\'s expect: test.concurrent(name, async ({ expect }) => ...). Nothing was written or removed.',
    { details: { matcher, testPath: ctx.testPath } },
  );
}

/** A test starts (or is retried): its counters start again; its golden paths stay its own. */
export function resetGoldenCounters(task?: TaskLike): void {
  if (task) counters.delete(task.id);
  else counters.clear();
}

interface WorkerState {
  config?: { root?: string };
}

/**
 * The vitest project's root (each workspace project its own), never the
 * current directory: vitest's worker state knows it; without it, the nearest
 * folder above the test file with a package.json.
 */
export function projectRoot(testPath?: string): string {
  const worker = (globalThis as { __vitest_worker__?: WorkerState }).__vitest_worker__;
  if (worker?.config?.root) return worker.config.root;
  for (let dir = testPath ? dirname(resolve(testPath)) : process.cwd(); ; dir = dirname(dir)) {
    if (existsSync(resolve(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return process.cwd();
  }
}

/** Per project and TAPEDECK_GOLDENS value: the config file is read once, and a changed variable still counts. */
const roots = new Map<string, string>();
export function goldenRoot(testPath?: string): string {
  const project = projectRoot(testPath);
  const key = `${project}\0${process.env.TAPEDECK_GOLDENS ?? ''}`;
  let root = roots.get(key);
  if (root === undefined) {
    let configured: string | undefined;
    try {
      configured = loadConfig(undefined, project).goldens;
    } catch {
      configured = undefined; // a broken config is reported by the CLI; matchers fall back to goldens/
    }
    root = defaultGoldenRoot(project, configured);
    roots.set(key, root);
  }
  return root;
}

/** Per project: tapedeck.config's `matchers` defaults (a broken config is reported by the CLI; matchers then use none). */
const defaultsByProject = new Map<string, Record<string, Record<string, unknown>>>();
export function matcherDefaults<T extends object>(testPath: string | undefined, matcher: string): Partial<T> {
  const project = projectRoot(testPath);
  let all = defaultsByProject.get(project);
  if (!all) {
    try {
      all = loadConfig(undefined, project).matchers;
    } catch {
      all = {};
    }
    defaultsByProject.set(project, all);
  }
  const given = { ...(all[matcher] ?? {}) } as Record<string, unknown>;
  // JSON gives regexes as strings; a rectangle stays an object.
  if (Array.isArray(given.mask)) given.mask = given.mask.map((m: unknown) => (typeof m === 'string' ? new RegExp(m) : m));
  return given as Partial<T>;
}

/** The folder of one test file's goldens. */
export function goldenFolderOf(testPath: string): string {
  return goldenFolder(goldenRoot(testPath), projectRoot(testPath), testPath);
}

export function displayPath(path: string): string {
  return relative(process.cwd(), path) || path;
}

/** The next golden path of the current test: goldens/<file>/<test>[-N].<ext>; fails when another test already has it. */
export function nextGoldenPath(ctx: MatcherStateLike, ext: string, name?: string, test: GoldenOwner = goldenOwner(ctx, 'this matcher')): { path: string; displayPath: string } {
  const testPath = test.testPath;
  const testName = name ?? (test.testName || 'unnamed test');
  const owner = test.key;
  const mine = counters.get(owner) ?? new Map<string, number>();
  counters.set(owner, mine);
  const key = `${testName}\0${ext}`;
  const n = (mine.get(key) ?? 0) + 1;
  mine.set(key, n);
  const path = goldenFile(goldenFolderOf(testPath), testName, ext, n, name !== undefined);
  const folded = path.normalize('NFC').toLowerCase();
  const taken = owners.get(folded);
  if (taken && taken.test !== owner) {
    throw new TapedeckError(
      'GOLDEN_COLLISION',
      `tests ${JSON.stringify(taken.name)} and ${JSON.stringify(testName)} in ${displayPath(testPath)} would share the golden ${displayPath(path)}` +
        `${taken.name !== testName && taken.name.toLowerCase() === testName.toLowerCase() ? ' (their names differ only in case, which macOS and Windows ignore)' : ''}; rename one of them, or give one a { name }`,
      { details: { golden: path, tests: [taken.name, testName] } },
    );
  }
  owners.set(folded, { test: owner, name: testName });
  usedGoldens.add(path);
  return { path, displayPath: displayPath(path) };
}

/**
 * The update policy, resolved once per assertion and passed to the store:
 * TAPEDECK_UPDATE wins, then vitest -u (all), then tapedeck's CI rule (a
 * missing golden fails on CI), then vitest's own choice.
 */
export function updatePolicyFor(ctx: MatcherStateLike, env: NodeJS.ProcessEnv = process.env): UpdatePolicy {
  const fromEnv = updateModeFromEnv(env);
  if (fromEnv === 'none') return { mode: 'none', reason: 'TAPEDECK_UPDATE=none: goldens are never written' };
  if (fromEnv) return { mode: fromEnv };
  const fromVitest = ctx.snapshotState?.snapshotUpdateState;
  if (fromVitest === 'all') return { mode: 'all' };
  if (isCI(env)) return { mode: 'none', reason: 'on CI (CI is set) goldens are never written' };
  if (fromVitest === 'none') return { mode: 'none', reason: 'vitest runs with --ci (snapshots are never written)' };
  return { mode: 'new' };
}
