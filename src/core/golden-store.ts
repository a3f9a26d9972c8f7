import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import { withFileLock } from './file-lock.js';
import { isCI, type UpdateMode } from './ci.js';

/**
 * The golden store: where goldens live, and the one place that decides whether
 * a golden is compared, written or rewritten (docs/ARCHITECTURE.md "Update modes").
 *
 *   none  never write; a missing golden fails (the CI default)
 *   new   write missing goldens, compare existing ones (the local default)
 *   all   rewrite goldens that differ (vitest -u, TAPEDECK_UPDATE=all)
 *
 * Writes are atomic (temp file + rename), so parallel workers and crashes
 * never leave a half-written golden; each golden path belongs to one test, so
 * workers never write the same file.
 */
export type GoldenStatus = 'matched' | 'written' | 'updated' | 'missing' | 'mismatch';

export interface GoldenCheck {
  /** Absolute path of the golden. */
  path: string;
  /** What would be stored. */
  actual: Buffer | string;
  mode: UpdateMode;
  /** Compares an existing golden with `actual`; the message explains a mismatch. */
  compare: (expected: Buffer) => { pass: boolean; message?: string };
  /** Called on a mismatch that is not being accepted (e.g. write actual and diff images beside it). */
  onMismatch?: (expected: Buffer) => string[] | void;
  /** Shown in messages instead of the absolute path. */
  displayPath?: string;
}

export interface GoldenResult {
  pass: boolean;
  status: GoldenStatus;
  message: string;
  /** Extra files written beside the golden (pending `.new`, diff images). */
  artifacts: string[];
}

export function checkGolden(check: GoldenCheck): GoldenResult {
  const shown = check.displayPath ?? relative(process.cwd(), check.path);
  const actual = typeof check.actual === 'string' ? Buffer.from(check.actual, 'utf8') : check.actual;
  const pending = `${check.path}.new`;
  if (!existsSync(check.path)) {
    if (check.mode === 'none') {
      const why = isCI() ? 'on CI (CI is set) goldens are never written' : 'the update mode is none';
      return {
        pass: false,
        status: 'missing',
        message: `golden ${shown} does not exist, and ${why}. Create it by running the test locally (missing goldens are written), or with TAPEDECK_UPDATE=new or vitest -u, then commit it.`,
        artifacts: [],
      };
    }
    write(check.path, actual);
    rmSync(pending, { force: true });
    return { pass: true, status: 'written', message: `wrote new golden ${shown}`, artifacts: [] };
  }
  const expected = readFileSync(check.path);
  const verdict = expected.equals(actual) ? { pass: true } : check.compare(expected);
  if (verdict.pass) {
    rmSync(pending, { force: true });
    return { pass: true, status: 'matched', message: `matches ${shown}`, artifacts: [] };
  }
  if (check.mode === 'all') {
    write(check.path, actual);
    rmSync(pending, { force: true });
    return { pass: true, status: 'updated', message: `updated golden ${shown}`, artifacts: [] };
  }
  // Leave the candidate beside the golden for review (`tapedeck review` accepts or rejects it).
  const artifacts = [pending];
  if (!isCI()) write(pending, actual);
  else artifacts.pop();
  const extra = check.onMismatch?.(expected) ?? [];
  artifacts.push(...extra);
  const hint = 'If the change is intended, update the golden: vitest -u (or TAPEDECK_UPDATE=all).';
  return {
    pass: false,
    status: 'mismatch',
    message: `${verdict.message ?? `differs from golden ${shown}`}\n${artifacts.length ? `wrote ${artifacts.map((a) => relative(process.cwd(), a)).join(', ')}\n` : ''}${hint}`,
    artifacts,
  };
}

function write(path: string, data: Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  withFileLock(path, () => writeFileAtomic(path, data));
}

/** Makes a test or file name safe as a path segment, readable and stable. */
export function fileSafe(name: string): string {
  const safe = name
    .normalize('NFKD')
    .replace(/[^\w.\- ]+/g, '-')
    .replace(/\s+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^[-.]+|-+$/g, '');
  return (safe || 'unnamed').slice(0, 120);
}

export interface GoldenLocation {
  /** The goldens root (default `goldens/` under the project root). */
  root: string;
  /** The test file, relative to the project root. */
  testFile: string;
  /** The full test name ("describe > test"). */
  testName: string;
}

/**
 * goldens/<test file>/<test name>[-N].<ext>: the test file path keeps its
 * folders (minus a leading test/ or tests/) so two files never collide; the
 * counter N (from 2) tells apart several goldens in one test.
 */
export function goldenPath(loc: GoldenLocation, ext: string, counter: number): string {
  const file = loc.testFile.replace(/\\/g, '/').replace(/^(test|tests|__tests__)\//, '');
  const name = fileSafe(loc.testName.replace(/ > /g, ' '));
  const suffix = counter > 1 ? `-${counter}` : '';
  return resolve(loc.root, ...file.split('/').map(fileSafe), `${name}${suffix}.${ext}`);
}

export function defaultGoldenRoot(projectRoot: string, configured?: string): string {
  return resolve(projectRoot, configured ?? process.env.TAPEDECK_GOLDENS ?? 'goldens');
}

export { join };
