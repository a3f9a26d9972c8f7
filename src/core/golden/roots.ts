import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { writeFileAtomic } from '../files/atomic-write.js';
import { withFileLock } from '../files/file-lock.js';

/**
 * Where the candidates of a vitest run are, for `tapedeck review` from any
 * folder: a run that leaves `.new` files notes the folders they are under
 * (each project's goldens root) in `node_modules/.cache/tapedeck/pending-roots.json`
 * of the nearest node_modules above the folder vitest ran in and above each
 * project root; review reads the notes of every folder above its own.
 */
const NOTE = join('node_modules', '.cache', 'tapedeck', 'pending-roots.json');

/** The nearest folder at or above `from` that has node_modules. */
function nearestModules(from: string): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function readNote(file: string): string[] {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as { roots?: unknown };
    return Array.isArray(value.roots) ? value.roots.filter((r): r is string => typeof r === 'string') : [];
  } catch {
    return []; // no note, or a broken one: nothing learnt from it
  }
}

/** Notes that `roots` hold candidates, beside the node_modules nearest to each of `near`. */
export function notePendingRoots(roots: readonly string[], near: readonly string[]): void {
  const places = new Set(near.map(nearestModules).filter((d): d is string => d !== undefined));
  for (const place of places) {
    const file = join(place, NOTE);
    try {
      mkdirSync(dirname(file), { recursive: true });
      withFileLock(file, () => {
        const all = [...new Set([...readNote(file), ...roots.map((r) => resolve(r))])].sort();
        writeFileAtomic(file, `${JSON.stringify({ roots: all }, null, 2)}\n`);
      });
    } catch {
      // A read-only node_modules: review still finds the goldens folder of the current project.
    }
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The folders review looks in when given none: the current project's goldens
 * folder, the goldens folder of every package above the current folder, and
 * every folder a run noted (above). Existing folders only, in that order.
 */
export function reviewRoots(cwd: string, configured: string, options: { withinPackage?: boolean } = {}): { roots: string[]; lookedIn: string[] } {
  const lookedIn: string[] = [resolve(cwd, configured)];
  let pkg: string | undefined;
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) {
      pkg ??= dir;
      lookedIn.push(join(dir, 'goldens'));
    }
    lookedIn.push(...readNote(join(dir, NOTE)));
    if (dirname(dir) === dir) break;
  }
  // Acting on "all" (accept, reject) stays inside the current package: from app/, never lib's goldens.
  const inside = (d: string) => !options.withinPackage || !pkg || d === pkg || d.startsWith(`${pkg}/`);
  const unique = [...new Set(lookedIn)].filter(inside);
  return { roots: unique.filter(isDir), lookedIn: unique };
}
