import { relative, resolve } from 'node:path';
import { isCI, resolveUpdateMode, type UpdateMode } from '../core/ci.js';
import { loadConfig } from '../core/config.js';
import { defaultGoldenRoot, goldenPath } from '../core/golden-store.js';

/** The parts of vitest's matcher `this` (MatcherState) tapedeck reads. */
export interface MatcherStateLike {
  testPath?: string;
  currentTestName?: string;
  isNot?: boolean;
  snapshotState?: { readonly snapshotUpdateState?: 'all' | 'new' | 'none' };
}

/** Goldens each test has taken so far, for the -2, -3 counter; reset when a test starts. */
const counters = new Map<string, number>();
/** Every golden path used in this worker (for the obsolete-golden report). */
export const usedGoldens = new Set<string>();

export function resetGoldenCounters(): void {
  counters.clear();
}

let cachedRoot: string | undefined;
function goldensRoot(): string {
  if (cachedRoot === undefined) {
    let configured: string | undefined;
    try {
      configured = loadConfig().goldens;
    } catch {
      configured = undefined; // a broken config is reported by the CLI; matchers fall back to goldens/
    }
    cachedRoot = defaultGoldenRoot(process.cwd(), configured);
  }
  return cachedRoot;
}

export function goldenRoot(): string {
  return goldensRoot();
}

/** The next golden path of the current test: goldens/<file>/<test>[-N].<ext>. */
export function nextGoldenPath(ctx: MatcherStateLike, ext: string, name?: string): { path: string; displayPath: string } {
  const testPath = ctx.testPath ?? 'unknown-test-file';
  const testName = name ?? ctx.currentTestName ?? 'unnamed test';
  const key = `${testPath}\0${testName}\0${ext}`;
  const n = (counters.get(key) ?? 0) + 1;
  counters.set(key, n);
  const testFile = relative(process.cwd(), resolve(testPath)).replace(/\.(test|spec)\.[cm]?[jt]sx?$/, '');
  const path = goldenPath({ root: goldensRoot(), testFile, testName }, ext, n);
  usedGoldens.add(path);
  return { path, displayPath: relative(process.cwd(), path) };
}

/**
 * vitest already decides between all (-u), new (local) and none (CI) for its
 * own snapshots; tapedeck follows it, and TAPEDECK_UPDATE overrides both.
 */
export function updateModeFor(ctx: MatcherStateLike): UpdateMode {
  const fromEnv = process.env.TAPEDECK_UPDATE?.trim().toLowerCase();
  if (fromEnv === 'none' || fromEnv === 'new' || fromEnv === 'all') return fromEnv;
  const fromVitest = ctx.snapshotState?.snapshotUpdateState;
  if (fromVitest === 'all') return 'all';
  // tapedeck's own CI rule wins over vitest's guess: on CI a missing golden fails.
  return resolveUpdateMode(isCI() ? 'none' : fromVitest);
}
