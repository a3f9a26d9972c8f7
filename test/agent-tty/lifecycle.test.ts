import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, run } from '../helpers/cli.js';
import { agentHome, agentTty, eventually, ok, running } from '../helpers/agent-tty.js';

/**
 * How sessions end and what is left: a program that exits by itself (and its
 * host that leaves after it), a signal, idle timeout, a crashed host
 * (reconciled on the next read), forced destroy, and gc, which never touches
 * a running session.
 */
let home: string;
let cleanup: () => Promise<void>;
const ids: Record<string, string> = {};
const noLinger = { AGENT_TTY_EXIT_LINGER_MS: '0', PS1: '$ ' };

beforeAll(async () => {
  ({ home, cleanup } = agentHome());
  const specs: Record<string, string[]> = {
    exits: ['--rows', '5', '--cols', '40', '--', 'sh', '-c', 'read x; echo bye-$x; exit 3'],
    signalled: ['--', 'sleep', '600'],
    idle: ['--idle-timeout-ms', '400', '--', 'bash', '--norc', '--noprofile'],
    crash: ['--', 'bash', '--norc', '--noprofile'],
    force: ['--', 'bash', '--norc', '--noprofile'],
  };
  await Promise.all(Object.entries(specs).map(async ([name, args]) => (ids[name] = (await ok(home, ['create', ...args], { env: noLinger })).sessionId)));
});
afterAll(async () => cleanup());

describe('agent-tty session ends', () => {
  it('a program that exits: wait --exit, then the host leaves and the screen comes from the event log', async () => {
    const id = ids.exits;
    await ok(home, ['type', id, 'now', '--append-newline']);
    expect(await ok(home, ['wait', id, '--exit'])).toEqual({ timedOut: false, exitCode: 3 });
    const info = await eventually(async () => {
      const r = await ok(home, ['inspect', id]);
      return r.session.hostPid === null ? r : undefined;
    }, 20_000, 'the host to leave after the program exited');
    expect(info.session).toMatchObject({ status: 'exited', exitCode: 3, exitSignal: null, childPid: null });
    expect(info.terminationCategory).toBe('nonzero-exit');
    expect(existsSync(info.session.socketPath)).toBe(false);
    const snap = await ok(home, ['snapshot', id, '--format', 'text']);
    expect(snap).toMatchObject({ offline: true, text: 'now\nbye-now' });
    const shot = await ok(home, ['screenshot', id, '--out', join(home, 'exited.png')]);
    expect(shot).toMatchObject({ sessionId: id, cols: 40, rows: 5, artifactPath: join(home, 'exited.png') });
    expect(readFileSync(join(home, 'exited.png')).subarray(1, 4).toString()).toBe('PNG');
    const typed = await agentTty(home, ['type', id, 'more']);
    expect([typed.code, typed.env.error?.code, typed.env.error?.details.terminationCategory]).toEqual([4, 'SESSION_NOT_RUNNING', 'nonzero-exit']);
    // Its cast records the exit, and replays against a fresh program.
    const cast = join(home, 'exits.cast');
    await ok(home, ['record', 'export', id, '--out', cast]);
    expect(readFileSync(cast, 'utf8')).toContain('"x","3"');
    const replay = await run(['node', CLI, 'replay', cast, '--trust-tape']);
    expect(replay.code).toBe(0);
  });

  it('a signal ends the program: signal-exit', async () => {
    const id = ids.signalled;
    await ok(home, ['signal', id, 'TERM']);
    expect(await ok(home, ['wait', id, '--exit'])).toMatchObject({ timedOut: false, exitSignal: 'SIGTERM' });
    const info = await eventually(async () => {
      const r = await ok(home, ['inspect', id]);
      return r.session.hostPid === null ? r : undefined;
    }, 20_000, 'the host to leave');
    expect(info.terminationCategory).toBe('signal-exit');
    expect(info.session).toMatchObject({ exitCode: null, exitSignal: 'SIGTERM' });
    const log = readFileSync(join(home, 'sessions', id, 'events.ndjson'), 'utf8');
    expect(log).toContain('"type":"signal","signal":"SIGTERM"');
    // The cast names the signal in a marker and records the shell's 128+15; replay sends the signal again.
    const cast = join(home, 'signalled.cast');
    await ok(home, ['record', 'export', id, '--out', cast]);
    const events = readFileSync(cast, 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l));
    expect(events.filter((e) => e[1] === 'm' || e[1] === 'x').map((e) => [e[1], e[2]])).toEqual([['m', 'signal:SIGTERM'], ['x', '143']]);
    const replay = await run(['node', CLI, 'replay', cast, '--trust-tape']);
    expect([replay.code, replay.stderr]).toEqual([0, expect.stringContaining('0 drift(s)')]);
  });

  it('--idle-timeout-ms ends a session nobody uses', async () => {
    const id = ids.idle;
    // Watch the manifest on disk: asking the host (inspect) is activity and would keep the session alive.
    const manifest = join(home, 'sessions', id, 'session.json');
    await eventually(() => (JSON.parse(readFileSync(manifest, 'utf8')).status === 'destroyed' ? true : undefined), 20_000, 'the idle timeout');
    const info = await ok(home, ['inspect', id]);
    expect(info.session).toMatchObject({ status: 'destroyed', endReason: 'idle-timeout', hostPid: null, childPid: null });
    expect(info.terminationCategory).toBe('destroyed');
  });

  it('a crashed host is reconciled on the next read: host-death, orphan killed, socket gone', async () => {
    const id = ids.crash;
    const before = (await ok(home, ['inspect', id])).session;
    process.kill(before.hostPid, 'SIGKILL');
    await eventually(() => (running(before.hostPid) ? undefined : true), 10_000, 'the host to die');
    const info = await ok(home, ['inspect', id]);
    expect(info.usedOfflineReplay).toBe(true);
    expect(info.terminationCategory).toBe('host-death');
    expect(info.session).toMatchObject({ status: 'failed', failureOrigin: 'host-death', hostPid: null, childPid: null });
    await eventually(() => (running(before.childPid) ? undefined : true), 10_000, 'the orphaned child to be killed');
    expect(existsSync(before.socketPath)).toBe(false);
    expect((await ok(home, ['list'])).sessions.map((s: { sessionId: string }) => s.sessionId)).not.toContain(id);
  });

  it('a recorded child pid that another process holds by now is never killed', async () => {
    const own = agentHome();
    const stranger = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    try {
      const id = (await ok(own.home, ['create', '--', 'bash', '--norc', '--noprofile'], { env: noLinger })).sessionId;
      const before = (await ok(own.home, ['inspect', id])).session;
      process.kill(before.hostPid, 'SIGKILL');
      await eventually(() => (running(before.hostPid) || running(before.childPid) ? undefined : true), 10_000, 'host and child to be gone');
      // The record, last written an hour ago, names a pid that a process started since holds (a reused pid).
      const manifest = join(own.home, 'sessions', id, 'session.json');
      const record = JSON.parse(readFileSync(manifest, 'utf8'));
      writeFileSync(manifest, JSON.stringify({ ...record, childPid: stranger.pid, updatedAt: new Date(Date.now() - 3_600_000).toISOString() }));
      expect((await ok(own.home, ['inspect', id])).session).toMatchObject({ status: 'failed', failureOrigin: 'host-death', childPid: null });
      expect(running(stranger.pid!)).toBe(true);
    } finally {
      stranger.kill('SIGKILL');
      await own.cleanup();
    }
  });

  it('destroy --force kills host and child', async () => {
    const id = ids.force;
    const before = (await ok(home, ['inspect', id])).session;
    expect(await ok(home, ['destroy', id, '--force'])).toEqual({ sessionId: id, destroyed: true });
    await eventually(() => (running(before.hostPid) || running(before.childPid) ? undefined : true), 10_000, 'host and child to be gone');
    expect((await ok(home, ['inspect', id])).session.status).toBe('destroyed');
  });

  it('gc removes stale sessions by default, ended ones with --older-than, and never a running one', async () => {
    // A home of its own: what gc finds does not depend on the other tests.
    const own = agentHome();
    try {
      const create = async (args: string[]) => (await ok(own.home, ['create', ...args], { env: noLinger })).sessionId as string;
      const bash = ['--', 'bash', '--norc', '--noprofile'];
      const [exited, destroyed, crashed, keeper] = await Promise.all([create(['--', 'sh', '-c', 'exit 0']), create(['--', 'sleep', '600']), create(bash), create(bash)]);
      await ok(own.home, ['destroy', destroyed]);
      await eventually(async () => ((await ok(own.home, ['inspect', exited])).session.hostPid === null ? true : undefined), 20_000, 'the exited session\'s host to leave');
      const hostPid = (await ok(own.home, ['inspect', crashed])).session.hostPid;
      process.kill(hostPid, 'SIGKILL');
      await eventually(() => (running(hostPid) ? undefined : true), 10_000, 'the host to die');
      const stale = await ok(own.home, ['gc']);
      expect(stale.removed).toEqual([crashed]);
      expect(existsSync(join(own.home, 'sessions', crashed))).toBe(false);
      const old = await ok(own.home, ['gc', '--older-than', '1ms']);
      expect([...old.removed].sort()).toEqual([exited, destroyed].sort());
      // The running session is untouched and still answers.
      expect((await ok(own.home, ['list'])).sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([keeper]);
      await ok(own.home, ['type', keeper, 'echo still-here', '--append-newline']);
      await ok(own.home, ['wait', keeper, '--regex', '^still-here$']);
    } finally {
      await own.cleanup();
    }
  });
});
