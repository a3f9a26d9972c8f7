import { connect, createServer } from 'node:net';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Seed 002 §19's "socket viability": bind a Unix socket in a fresh 0700
 * directory with mode 0600, connect to it and exchange one line, the way a
 * session host and the CLI talk.
 */
export interface SocketCheck {
  name: 'control-socket';
  ok: boolean;
  detail?: string;
  fix?: string;
}

export async function socketCheck(timeoutMs = 5000): Promise<SocketCheck> {
  const name = 'control-socket';
  let dir: string | undefined;
  try {
    dir = mkdtempSync(join(tmpdir(), 'agent-tty-doctor-'));
    const path = join(dir, 'check.sock');
    const server = createServer((s) => s.end('pong\n'));
    const old = process.umask(0o077);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(path, resolve);
      });
    } finally {
      process.umask(old);
    }
    const mode = statSync(path).mode & 0o777;
    const reply = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      const c = connect(path);
      let text = '';
      c.on('data', (d) => (text += d.toString()));
      c.on('end', () => {
        clearTimeout(timer);
        resolve(text);
      });
      c.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (reply !== 'pong\n') return { name, ok: false, detail: `unexpected reply ${JSON.stringify(reply)}`, fix: 'check for a sandbox that blocks Unix sockets' };
    if (mode & 0o077) return { name, ok: false, detail: `socket created with mode ${mode.toString(8)}, not 600`, fix: 'the file system ignores modes; set TMPDIR and AGENT_TTY_HOME to a local disk' };
    return { name, ok: true, detail: `Unix socket (mode 600 in a 700 directory) bound and answered under ${tmpdir()}` };
  } catch (err) {
    return { name, ok: false, detail: `cannot use a Unix socket: ${(err as Error).message}`, fix: 'set TMPDIR to a writable local directory (sockets cannot live on some network or FUSE file systems)' };
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}
