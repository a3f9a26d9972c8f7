import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A directory tapedeck (or agent-tty) keeps under a parent other users can
 * write to ($TMPDIR is usually /tmp): `$TMPDIR/tapedeck-UID`,
 * `$TMPDIR/agent-tty-UID` (control sockets), `$TMPDIR/tapedeck-fontconfig-UID`.
 * Anyone can create that name first. So the directory is made 0700 when it is
 * missing, and an existing one is used only when it is a real directory (not
 * a symlink), owned by this uid and writable by nobody else; otherwise the
 * caller gets the reason and must refuse (nothing is chmodded, nothing is
 * written into it). A directory of ours that others can merely read is
 * tightened to 0700.
 */
export function problemWithSharedDir(dir: string, options: { create?: boolean } = {}): string | undefined {
  try {
    if (options.create === false) lstatSync(dir);
    else mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && options.create === false) return 'it does not exist';
    if (code === 'ENOENT') {
      mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
      return problemWithSharedDir(dir);
    }
    if (code !== 'EEXIST') return `cannot create it: ${(err as Error).message}`;
  }
  const st = lstatSync(dir);
  if (st.isSymbolicLink()) return 'it is a symbolic link';
  if (!st.isDirectory()) return 'it is not a directory';
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && st.uid !== uid) return `it is owned by uid ${st.uid}, not by this user (uid ${uid})`;
  if (st.mode & 0o022) return `others can write to it (mode ${(st.mode & 0o777).toString(8)})`;
  if (st.mode & 0o077) chmodSync(dir, 0o700);
  return undefined;
}

/** The message for a refused shared directory: what it is, why, and what to do. */
export function sharedDirMessage(dir: string, problem: string): string {
  return `refusing to use ${dir}: ${problem}; another user may have created it to read or replace what goes there. Remove it, or set TMPDIR to a directory only you can write to`;
}
