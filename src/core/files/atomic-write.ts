import { chmodSync, rmSync, openSync, closeSync, writeSync, statSync, renameSync, fsyncSync } from 'node:fs';
import { TapedeckError } from '../diagnostics/errors.js';
import { siblingTempPath } from './temp-files.js';
import { boundedWriteTarget } from './project-bounds.js';

/**
 * Writes a file so that a crash leaves either the old content or the new one,
 * never half: write a sibling temp file, fsync it, rename over the target.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const target = writeTarget(path); // a TapedeckError of its own when refused
  try {
    writeAtomically(target, data);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const reason = e.code === 'ENOENT' ? 'no such directory' : e.code === 'EACCES' ? 'permission denied' : e.code === 'ENOSPC' ? 'no space left on device' : e.message;
    throw new TapedeckError('STORAGE_WRITE_ERROR', `cannot write: ${reason} (nothing was changed)`, { location: { file: path }, cause: err });
  }
}

/**
 * Where a write to `path` lands: through a symlink to the file it points to,
 * so updating a linked tape or golden updates the real one instead of
 * replacing the link with a copy.
 */
export function writeTarget(path: string): string {
  return boundedWriteTarget(path); // refused when the link leads out of its project (files/project-bounds.ts)
}

function writeAtomically(path: string, data: string | Uint8Array): void {
  const tmp = siblingTempPath(path);
  let mode: number | undefined;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    mode = undefined;
  }
  const fd = openSync(tmp, 'w', mode ?? 0o644);
  try {
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  if (mode !== undefined) chmodSync(tmp, mode);
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
