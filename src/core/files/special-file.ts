import { statSync } from 'node:fs';
import { TapedeckError } from '../diagnostics/errors.js';

/**
 * Refuses an input that is neither a regular file nor a stream the user named
 * as one. Opening a named pipe (FIFO) blocks until someone writes to it, in a
 * thread no signal handler can interrupt, so a `.cast` or tape that is a FIFO
 * (in a goldens folder, matched by a glob) would hang the run and make it deaf
 * to SIGTERM and SIGINT. Streams given on purpose stay readable: `-`,
 * `/dev/stdin`, `/dev/fd/N` (a shell's `<(cmd)`), `/proc/self/fd/N`, and
 * devices such as /dev/zero (bounded by the line limit).
 */
export function refuseSpecialFile(path: string): void {
  if (path === '-' || path.startsWith('/dev/') || path.startsWith('/proc/')) return;
  let kind: string | undefined;
  try {
    const st = statSync(path);
    if (st.isFile() || st.isDirectory()) return;
    kind = st.isFIFO() ? 'a named pipe (FIFO)' : st.isSocket() ? 'a socket' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : 'not a regular file';
  } catch {
    return; // missing or unreadable: the reader names it
  }
  throw new TapedeckError('INVALID_INPUT', `not a regular file: it is ${kind}, which tapedeck does not open (it could block forever); give a file, or pipe it in as - or /dev/stdin`, {
    location: { file: path },
  });
}
