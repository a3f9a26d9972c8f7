import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { TapedeckError } from '../diagnostics/errors.js';

/**
 * Writers (review --accept, replay --update, vitest -u, fix --apply) write a
 * symlinked golden or tape through to its target, so a linked tape stays a
 * link. But a link in the project may point anywhere (`goldens/a.txt ->
 * ../../../home/me/.bashrc`, from a pull request): a write lands on its target
 * only when the target is in the same project as the link. Links to files
 * outside, or through symlinked folders that leave it, are refused.
 */

/** What marks a project's root folder. */
const MARKERS = ['tapedeck.config.json', 'package.json', '.git'];

/**
 * The project a path (as written, symlinks not followed) belongs to: the
 * nearest folder above it that holds a marker and is not itself a symlink;
 * else the working directory when the path is under it; else the path's folder.
 */
export function projectOf(path: string, cwd = process.cwd()): string {
  const abs = resolve(cwd, path);
  for (let dir = dirname(abs); ; dir = dirname(dir)) {
    if (!isLink(dir) && MARKERS.some((m) => existsSync(join(dir, m)))) return dir;
    if (dirname(dir) === dir) break;
  }
  return within(resolve(cwd), abs) ? resolve(cwd) : dirname(abs);
}

/**
 * Where a write to `path` lands (through symlinks: the real file), or a
 * STORAGE_WRITE_ERROR naming the link when that is outside the link's project.
 * A path that does not exist yet lands where its nearest existing folder really is.
 */
export function boundedWriteTarget(path: string, cwd = process.cwd()): string {
  const abs = resolve(cwd, path);
  const target = realTarget(abs);
  if (target === abs) return abs;
  const project = projectOf(abs, cwd);
  if (within(realOr(project), target)) return target;
  throw new TapedeckError(
    'STORAGE_WRITE_ERROR',
    `cannot write: it leads through a symbolic link to ${target}, outside the project ${project}; tapedeck does not write through links that leave the project (nothing was changed). Replace the link with the file, or point it inside the project`,
    { location: { file: path } },
  );
}

function realTarget(abs: string): string {
  try {
    return realpathSync(abs);
  } catch {
    // Missing (or a dangling link, which a rename replaces): where its folder really is.
    if (isLink(abs)) return abs;
    const parent = dirname(abs);
    return parent === abs ? abs : join(realTarget(parent), basename(abs));
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** `path` is `root` or under it. */
export function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
