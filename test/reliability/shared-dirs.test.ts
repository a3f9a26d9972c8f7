import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { agentTty } from '../helpers/agent-tty.js';
import { CLI, run } from '../helpers/cli.js';

/**
 * Issue 26.2 and the rule behind it: a directory tapedeck keeps under a parent
 * other users write to ($TMPDIR) is used only when it is a real directory of
 * this uid that nobody else can write. Driven with a second user account, as
 * the report did: that user creates the directory first (0777, or a symlink to
 * a place of theirs) before the session starts.
 */
const OTHER = 'tapedeck-other';
const uid = process.getuid!();
let shared: string; // our stand-in for /tmp: mode 1777
let homeParent: string;
let home: string; // long enough that the socket cannot live beside the manifest

/** Runs a command as the second user. */
const asOther = (...argv: string[]) => execFileSync('runuser', ['-u', OTHER, '--', ...argv], { stdio: 'pipe' });

beforeAll(() => {
  // Tests run as root in CI; the second account is made here when the machine has none.
  try {
    execFileSync('id', ['-u', OTHER], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', OTHER], { stdio: 'ignore' });
  }
  shared = mkdtempSync(join(tmpdir(), 'tapedeck-shared-'));
  chmodSync(shared, 0o1777);
  homeParent = mkdtempSync(join(tmpdir(), 'tapedeck-home-'));
  home = join(homeParent, 'h'.repeat(110));
});
afterAll(() => {
  rmSync(shared, { recursive: true, force: true });
  rmSync(homeParent, { recursive: true, force: true });
});

const env = () => ({ TMPDIR: shared });
const socketDir = () => join(shared, `agent-tty-${uid}`);

async function createRefused(reason: RegExp): Promise<void> {
  const r = await agentTty(home, ['create', '--', 'sh'], { env: env(), bin: true });
  expect(r.code).not.toBe(0);
  expect(r.env.ok).toBe(false);
  expect(r.env.error!.code).toBe('STORAGE_WRITE_ERROR');
  expect(r.env.error!.message).toContain(`control socket: refusing to use ${socketDir()}`);
  expect(r.env.error!.message).toMatch(reason);
}

describe('the control socket\'s fallback directory under $TMPDIR (26.2)', () => {
  test('made by another user with mode 0777: refused, left as it was, nothing put in it', async () => {
    asOther('mkdir', '-m', '777', socketDir());
    await createRefused(/owned by uid \d+, not by this user/);
    expect(statSync(socketDir()).mode & 0o777).toBe(0o777); // not chmodded to look like ours
    expect(readdirSync(socketDir())).toEqual([]);
    asOther('rmdir', socketDir());
  });

  test('a symlink (made by another user) to a directory of theirs: refused, nothing created there', async () => {
    const theirs = join(shared, 'theirs');
    asOther('mkdir', '-m', '777', theirs);
    asOther('ln', '-s', theirs, socketDir());
    await createRefused(/it is a symbolic link/);
    expect(readdirSync(theirs)).toEqual([]);
    asOther('rm', socketDir());
  });

  test('our own, but writable by others: refused (someone may have put a socket there already)', async () => {
    mkdirSync(socketDir(), { mode: 0o700 });
    chmodSync(socketDir(), 0o777);
    await createRefused(/others can write to it \(mode 777\)/);
    rmSync(socketDir(), { recursive: true });
  });

  test('absent: made 0700 and ours; the other user can neither list it nor talk to the socket', async () => {
    const created = await agentTty(home, ['create', '--', 'sh'], { env: env(), bin: true });
    expect(created.code).toBe(0);
    const id = created.env.result.sessionId;
    try {
      const info = await agentTty(home, ['inspect', id], { env: env(), bin: true });
      const socket = info.env.result.session.socketPath as string;
      expect(socket.startsWith(`${socketDir()}/`)).toBe(true);
      const st = lstatSync(socketDir());
      expect([st.isDirectory(), st.uid, st.mode & 0o777]).toEqual([true, uid, 0o700]);
      const probe = `require('net').connect(${JSON.stringify(socket)}).on('connect', () => { console.log('connected'); process.exit(0); }).on('error', (e) => { console.log(e.code); process.exit(0); })`;
      expect(asOther('node', '-e', probe).toString().trim()).toBe('EACCES');
    } finally {
      await agentTty(home, ['destroy', id], { env: env(), bin: true });
    }
  });
});

describe("tapedeck's own temp folder under $TMPDIR follows the same rule", () => {
  test('$TMPDIR/tapedeck-UID made by another user: a cast from a pipe is refused with exit 2, not spooled there', async () => {
    const dir = join(shared, `tapedeck-${uid}`);
    asOther('mkdir', '-m', '777', dir);
    const r = await run(['node', CLI, 'snapshot', '/dev/stdin'], { env: env(), input: '{"version":2,"width":20,"height":3}\n[0.1,"o","hi"]\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`refusing to use ${dir}: it is owned by uid`);
    expect(readdirSync(dir)).toEqual([]);
    asOther('rmdir', dir);
    // Once it is gone, it is made ours and the cast plays.
    const ok = await run(['node', CLI, 'snapshot', '/dev/stdin'], { env: env(), input: '{"version":2,"width":20,"height":3}\n[0.1,"o","hi"]\n' });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('hi');
    expect(statSync(dir).uid).toBe(uid);
  });
});
