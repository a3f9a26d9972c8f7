import { withFileLock } from '../files/file-lock.js';
import { copyFileSync, existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { writeTarget } from '../files/atomic-write.js';
import { join, resolve } from 'node:path';
import { goldenPaths } from './paths.js';

/**
 * Pending goldens: a failed test or replay leaves the candidate beside the
 * golden as `<golden>.new` (screenshots also `<name>.actual.png` and
 * `<name>.diff.png`). Review accepts one (the candidate replaces the golden,
 * atomically by rename) or rejects it (the candidate goes); either way the
 * artifacts go too.
 */
export interface PendingGolden {
  golden: string;
  candidate: string;
  /** Other files that belong to this review (actual and diff images). */
  artifacts: string[];
  /** The golden does not exist yet. */
  isNew: boolean;
}

const SKIP_DIRS = new Set(['node_modules', '.git', 'dist']);

/** Pending goldens under the given files or folders, sorted by path. */
export function findPending(roots: readonly string[]): PendingGolden[] {
  const found = new Map<string, PendingGolden>();
  const visit = (path: string) => {
    let st;
    try {
      st = statSync(path);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(path)) if (!SKIP_DIRS.has(name)) visit(join(path, name));
      return;
    }
    const candidate = path.endsWith('.new') ? path : existsSync(goldenPaths(path).candidate) ? goldenPaths(path).candidate : undefined;
    if (!candidate) return;
    const golden = candidate.slice(0, -'.new'.length);
    found.set(golden, { golden, candidate, artifacts: artifactsOf(golden), isNew: !existsSync(golden) });
  };
  for (const r of roots) visit(resolve(r));
  return [...found.values()].sort((a, b) => a.golden.localeCompare(b.golden));
}

function artifactsOf(golden: string): string[] {
  if (!golden.endsWith('.png')) return [];
  const p = goldenPaths(golden);
  return [p.actualImage, p.diffImage].filter((f) => existsSync(f));
}

export function acceptPending(p: PendingGolden): void {
  // Through a symlinked golden to its target; rename is atomic: the golden is old or new, never half.
  // The lock keeps it out of a parallel rewrite of the same golden.
  withFileLock(p.golden, () => {
    const target = writeTarget(p.golden);
    try {
      renameSync(p.candidate, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      // The link points to another filesystem: copy beside the target, then rename there.
      const tmp = `${target}.tapedeck-accept`;
      copyFileSync(p.candidate, tmp);
      renameSync(tmp, target);
      rmSync(p.candidate, { force: true });
    }
  });
  for (const a of p.artifacts) rmSync(a, { force: true });
}

export function rejectPending(p: PendingGolden): void {
  rmSync(p.candidate, { force: true });
  for (const a of p.artifacts) rmSync(a, { force: true });
}
