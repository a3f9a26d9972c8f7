import { processAlive } from '../process-identity.js';
import { rmSync, openSync, closeSync, statSync, readdirSync, createReadStream, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { lazyPackage } from '../lazy-package.js';
import { limit, limitError } from '../config/limits.js';
import { TapedeckError, ioError } from '../diagnostics/errors.js';
import { problemWithSharedDir, sharedDirMessage } from './shared-dir.js';

// node:crypto costs a few ms at start-up; only a write needs a random name.
const crypto = lazyPackage<typeof import('node:crypto')>('node:crypto');

/**
 * Temporary files, named so that the next run can tell whose they are.
 *
 * - Sibling temp files (atomic writes, cast recording) must live beside their
 *   target for the final rename to be atomic: `.NAME.tapedeck-PID-RAND.tmp`.
 *   A writer killed with SIGKILL leaves one; the next writer into that folder
 *   (and `tapedeck doctor` in the current folder) removes those of dead pids.
 * - Everything else (a cast read from a pipe is spooled to a file) goes in one
 *   tapedeck-owned folder, `$TMPDIR/tapedeck-UID/`, removed at exit and swept
 *   the same way.
 */
const SIBLING = /^\..+\.tapedeck-(\d+)-[0-9a-f]+\.tmp$/;
const OWNED = /^(\d+)-/;

export function siblingTempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.tapedeck-${process.pid}-${crypto().randomBytes(4).toString('hex')}.tmp`);
}

/** The folder tapedeck keeps its own temporary files in (created 0700). */
export function tapedeckTempDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  const dir = join(tmpdir(), `tapedeck-${uid}`);
  const problem = problemWithSharedDir(dir); // under a parent others write to: ours alone, or refused
  if (problem) throw new TapedeckError('STORAGE_WRITE_ERROR', sharedDirMessage(dir, problem), { location: { file: dir } });
  return dir;
}

/** Removes the temp files of dead tapedeck processes in `dir`; returns what it removed. */
export function sweepStaleTemps(dir: string): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  const owned = dir === safeTempDir();
  for (const name of names) {
    const m = SIBLING.exec(name) ?? (owned ? OWNED.exec(name) : null);
    if (!m || processAlive(Number(m[1]))) continue;
    rmSync(join(dir, name), { force: true, recursive: true });
    removed.push(join(dir, name));
  }
  return removed;
}

function safeTempDir(): string | undefined {
  try {
    return tapedeckTempDir();
  } catch {
    return undefined;
  }
}

const spooled = new Set<string>();
process.once('exit', () => {
  for (const f of spooled) rmSync(f, { force: true });
});

/**
 * Copies a stream that cannot be read twice or at an offset (a pipe, a FIFO,
 * /dev/stdin) into the temp folder, up to the line limit times a few, so a
 * reader can treat it as a file. `/dev/zero` stops at the limit.
 */
export async function spoolToFile(path: string, name = 'spool'): Promise<string> {
  const dir = tapedeckTempDir();
  sweepStaleTemps(dir);
  const out = join(dir, `${process.pid}-${crypto().randomBytes(4).toString('hex')}-${name}`);
  spooled.add(out);
  const max = limit('maxLineBytes') * 4;
  const fd = openSync(out, 'w', 0o600);
  let total = 0;
  let sinceNewline = 0;
  let line = 1;
  try {
    // Standard input is opened as the stream it is: by path, a socket (as a parent's pipe often is) cannot be.
    const input = path === '-' || path === '/dev/stdin' ? process.stdin : createReadStream(path);
    for await (const chunk of input) {
      const buf = chunk as Buffer;
      total += buf.length;
      const last = buf.lastIndexOf(0x0a);
      if (last === -1) sinceNewline += buf.length;
      else {
        for (let i = buf.indexOf(0x0a); i !== -1; i = buf.indexOf(0x0a, i + 1)) line++;
        sinceNewline = buf.length - last - 1;
      }
      if (sinceNewline > limit('maxLineBytes')) throw limitError('maxLineBytes', `line ${line} is longer than ${limit('maxLineBytes')} bytes`, { file: path, line });
      if (total > max) throw limitError('maxLineBytes', `the stream is longer than ${max} bytes (4 times the line limit)`, { file: path });
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    }
  } catch (err) {
    rmSync(out, { force: true });
    if (err instanceof TapedeckError) throw err;
    throw ioError(path, err);
  } finally {
    closeSync(fd);
  }
  return out;
}

/** True for a regular file (what can be read twice and at an offset). */
export function isRegularFile(path: string): boolean {
  if (path === '-') return false;
  try {
    return statSync(path).isFile();
  } catch {
    return true; // let the reader report it (no such file, permission)
  }
}
