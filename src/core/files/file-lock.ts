import { processAlive } from '../process-identity.js';
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { TapedeckError } from '../diagnostics/errors.js';

/**
 * One writer at a time per file, across processes. Every read-modify-write of
 * a tape or golden (--update, fix, review, screenshot goldens) runs inside
 * withFileLock and re-reads the file there, so parallel writers serialise
 * instead of splicing one another's bytes. The lock is a sibling file created
 * exclusively (O_EXCL) holding the owner's pid; a lock whose owner is dead
 * (kill -9 mid-write) is taken over. Synchronous on purpose: the critical
 * sections are short, and callers need no change of shape.
 */
const held = new Map<string, number>();
const sleeper = new Int32Array(new SharedArrayBuffer(4));

export function lockPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.tapedeck-lock`);
}

export function withFileLock<T>(path: string, fn: () => T, timeoutMs = Number(process.env.TAPEDECK_LOCK_TIMEOUT_MS) || 60_000): T {
  const lock = lockPathFor(path);
  const depth = held.get(lock) ?? 0;
  if (depth > 0) {
    // Nested in this process (a rewrite inside a rewrite): the lock is ours already.
    held.set(lock, depth + 1);
    try {
      return fn();
    } finally {
      held.set(lock, depth);
    }
  }
  acquire(path, lock, timeoutMs);
  held.set(lock, 1);
  try {
    return fn();
  } finally {
    held.delete(lock);
    rmSync(lock, { force: true });
  }
}

function acquire(path: string, lock: string, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  let wait = 2;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx', 0o644);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') {
        throw new TapedeckError('STORAGE_WRITE_ERROR', `cannot lock for writing: ${(err as Error).message} (nothing was changed)`, { location: { file: path }, cause: err });
      }
    }
    const owner = ownerOf(lock);
    if (owner !== undefined && !processAlive(owner)) {
      rmSync(lock, { force: true }); // its writer died mid-write; the file itself is whole (atomic rename)
      continue;
    }
    if (Date.now() > deadline) {
      throw new TapedeckError('LOCKED', `another tapedeck process (pid ${owner ?? '?'}) is writing this file; gave up after ${timeoutMs} ms (lock ${lock}; nothing was changed)`, {
        location: { file: path },
      });
    }
    Atomics.wait(sleeper, 0, 0, wait + Math.random() * wait);
    wait = Math.min(wait * 2, 50);
  }
}

function ownerOf(lock: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lock, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined; // gone already, or being written: retry
  }
}
