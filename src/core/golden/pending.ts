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
      // A new golden named by its path: only its candidate exists yet.
      const candidate = goldenPaths(path).candidate;
      if (isFile(candidate)) found.set(path, { golden: path, candidate, artifacts: artifactsOf(path), isNew: true });
      return;
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(path)) if (!SKIP_DIRS.has(name)) visit(join(path, name));
      return;
    }
    const candidate = path.endsWith('.new') ? path : existsSync(goldenPaths(path).candidate) ? goldenPaths(path).candidate : undefined;
    if (!candidate || !isFile(candidate)) return; // a FIFO or device named *.new is no candidate (reading it could block)
    const golden = candidate.slice(0, -'.new'.length);
    found.set(golden, { golden, candidate, artifacts: artifactsOf(golden), isNew: !existsSync(golden) });
  };
  for (const r of roots) visit(resolve(r));
  return [...found.values()].sort((a, b) => a.golden.localeCompare(b.golden));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function artifactsOf(golden: string): string[] {
  if (!golden.endsWith('.png')) return [];
  const p = goldenPaths(golden);
  return [p.actualImage, p.diffImage].filter((f) => existsSync(f));
}

/**
 * Accepts a pending golden; false when its candidate was gone by the time the
 * lock was ours (a parallel review accepted or rejected it first): nothing to do.
 */
export function acceptPending(p: PendingGolden): boolean {
  // Through a symlinked golden to its target (refused when that leaves the project); rename is atomic: the
  // golden is old or new, never half. The lock keeps it out of a parallel rewrite or review of the same golden.
  const accepted = withFileLock(p.golden, () => {
    if (!existsSync(p.candidate)) return false;
    const target = writeTarget(p.golden);
    try {
      renameSync(p.candidate, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !existsSync(p.candidate)) return false;
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      // The link points to another filesystem: copy beside the target, then rename there.
      const tmp = `${target}.tapedeck-accept`;
      copyFileSync(p.candidate, tmp);
      renameSync(tmp, target);
      rmSync(p.candidate, { force: true });
    }
    return true;
  });
  for (const a of p.artifacts) rmSync(a, { force: true });
  return accepted;
}

/** Rejects a pending golden; false when a parallel review took its candidate first. */
export function rejectPending(p: PendingGolden): boolean {
  const rejected = withFileLock(p.golden, () => {
    if (!existsSync(p.candidate)) return false;
    rmSync(p.candidate, { force: true });
    return true;
  });
  for (const a of p.artifacts) rmSync(a, { force: true });
  return rejected;
}
