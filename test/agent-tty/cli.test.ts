import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentHome, agentTty, ok, running } from '../helpers/agent-tty.js';

/**
 * agent-tty end to end through its CLI entry: each test drives a bash session of
 * its own, in a home of its own, talking to the detached host over its control
 * socket, so no test sees another's screen, size, artifacts or sessions.
 */
const BASH = ['--', 'bash', '--norc', '--noprofile'];
const env = { PS1: '$ ' };
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(cleanups.map((c) => c()));
});

async function bashSession(): Promise<{ home: string; id: string }> {
  const { home, cleanup } = agentHome();
  cleanups.push(cleanup);
  const created = await ok(home, ['create', '--name', 'cli-test', '--env', 'GREETING=hi there', ...BASH], { env });
  await ok(home, ['wait', created.sessionId, '--text', '$ ']); // bash is reading its input
  return { home, id: created.sessionId };
}

describe.concurrent('agent-tty create/list/inspect', () => {
  it('creates a session with the seed defaults and a sortable id', async () => {
    const { home, id } = await bashSession();
    expect(id).toMatch(/^sess_[0-9A-HJKMNP-TV-Z]{26}$/);
    const info = await ok(home, ['inspect', id]);
    expect(info.session).toMatchObject({ version: 1, sessionId: id, status: 'running', rows: 40, cols: 120, name: 'cli-test', env: { GREETING: 'hi there' }, command: ['bash', '--norc', '--noprofile'] });
    expect(info.session.hostPid).toBeGreaterThan(0);
    expect(info.session.childPid).toBeGreaterThan(0);
    expect(info.terminationCategory).toBe('running');
    expect(info.usedOfflineReplay).toBeUndefined();
    const listed = await ok(home, ['list']);
    expect(listed.sessions).toEqual([{ sessionId: id, status: 'running', command: ['bash', '--norc', '--noprofile'], createdAt: info.session.createdAt, name: 'cli-test', pid: info.session.childPid }]);
  });

  it('passes --env into the program', async () => {
    const { home, id } = await bashSession();
    await ok(home, ['type', id, 'echo "[$GREETING]"', '--append-newline']);
    expect((await ok(home, ['wait', id, '--text', '[hi there]'])).matched).toBe(true);
  });
});

describe.concurrent('agent-tty input and waits', () => {
  it('types, waits for text and regex, and reports seqs and the cursor', async () => {
    const { home, id } = await bashSession();
    const typed = await ok(home, ['type', id, 'echo sum-$((40+2))', '--append-newline']);
    expect(typed).toMatchObject({ sessionId: id, bytesWritten: 19 });
    const waited = await ok(home, ['wait', id, '--text', 'sum-42']);
    expect(waited).toMatchObject({ matched: true, timedOut: false, matchedText: 'sum-42' });
    expect(waited.capturedAtSeq).toBeGreaterThan(typed.seq);
    const re = await ok(home, ['wait', id, '--regex', 'sum-\\d+']);
    expect(re.matchedText).toBe('sum-42');
  });

  it('types a file payload and pastes bracketed, and the event log keeps both apart', async () => {
    const { home, id } = await bashSession();
    const file = join(home, 'payload.txt');
    writeFileSync(file, 'echo from-file\n');
    await ok(home, ['type', id, '--file', file]);
    await ok(home, ['wait', id, '--text', 'from-file\n'.trim()]);
    const pasted = await ok(home, ['paste', id, 'echo pasted']);
    expect(pasted.bytesWritten).toBe('\x1b[200~echo pasted\x1b[201~'.length);
    await ok(home, ['send-keys', id, 'Enter']);
    await ok(home, ['wait', id, '--regex', '^pasted$']);
    const log = readFileSync(join(home, 'sessions', id, 'events.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const paste = log.find((e) => e.type === 'input' && e.kind === 'paste');
    expect(paste.text).toBe('echo pasted');
    expect(Buffer.from(paste.data, 'base64').toString()).toBe('\x1b[200~echo pasted\x1b[201~');
    expect(log.find((e) => e.type === 'input' && e.kind === 'type' && e.text === 'echo from-file\n')).toBeDefined();
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
  });

  it('sends keys and chords and echoes them as supplied', async () => {
    const { home, id } = await bashSession();
    await ok(home, ['type', id, 'echo abc']);
    const keys = await ok(home, ['send-keys', id, 'ctrl+a', 'Right', 'Right', 'Right', 'Right', 'Right', 'X', 'ENTER']);
    expect(keys).toMatchObject({ accepted: ['ctrl+a', 'Right', 'Right', 'Right', 'Right', 'Right', 'X', 'ENTER'] });
    expect(keys.bytesWritten).toBe(1 + 5 * 3 + 1 + 1);
    await ok(home, ['wait', id, '--regex', '^Xabc$']);
  });

  it('resizes (the program sees the new size) and signals', async () => {
    const { home, id } = await bashSession();
    expect(await ok(home, ['resize', id, '--rows', '30', '--cols', '100'])).toEqual({ sessionId: id, rows: 30, cols: 100 });
    await ok(home, ['type', id, 'echo size-$(stty size)', '--append-newline']);
    await ok(home, ['wait', id, '--text', 'size-30 100']);
    // Typed before the next prompt, a line can lose its first byte while bash resets the terminal: wait for the prompt.
    await ok(home, ['wait', id, '--regex', '^\\$ $']);
    // The signal goes to the PTY child (bash itself, seed 002 §12): its trap proves it arrived.
    await ok(home, ['type', id, "trap 'echo got-$((6*7))' INT; echo armed-$((1+1))", '--append-newline']);
    await ok(home, ['wait', id, '--text', 'armed-2']);
    const sig = await ok(home, ['signal', id, 'INT']);
    expect(sig).toMatchObject({ sessionId: id, signal: 'SIGINT' });
    await ok(home, ['wait', id, '--text', 'got-42']);
    await ok(home, ['type', id, 'trap - INT; echo after-$((2+2))', '--append-newline']);
    await ok(home, ['wait', id, '--text', 'after-4']);
    expect((await ok(home, ['inspect', id])).session).toMatchObject({ rows: 30, cols: 100 });
  });

  it('waits for idle output, a stable screen and a cursor position', async () => {
    const { home, id } = await bashSession();
    expect(await ok(home, ['wait', id, '--idle-ms', '100'])).toMatchObject({ timedOut: false });
    expect(await ok(home, ['wait', id, '--screen-stable-ms', '100'])).toMatchObject({ matched: true, timedOut: false });
    const snap = await ok(home, ['snapshot', id]);
    const at = await ok(home, ['wait', id, '--cursor-row', String(snap.cursor.row), '--cursor-col', String(snap.cursor.col)]);
    expect(at).toMatchObject({ matched: true, cursorRow: snap.cursor.row, cursorCol: snap.cursor.col });
  });

  it('a wait that times out exits 5 with the last observed state', async () => {
    const { home, id } = await bashSession();
    await ok(home, ['type', id, 'echo before-$((2+2))', '--append-newline']);
    await ok(home, ['wait', id, '--text', 'before-4']);
    const r = await agentTty(home, ['wait', id, '--text', 'never-shown', '--timeout-ms', '300']);
    expect(r.code).toBe(5);
    expect(r.env.ok).toBe(true);
    expect(r.env.result).toMatchObject({ matched: false, timedOut: true, timeoutMs: 300 });
    expect(r.env.result.lastState.visibleLines.join('\n')).toContain('before-4');
  });

  it('resolves settings flag, then environment, then <home>/config.json (§3)', async () => {
    const { home, id } = await bashSession();
    writeFileSync(join(home, 'config.json'), JSON.stringify({ timeoutMs: 250 }));
    {
      const args = ['wait', id, '--text', 'not-there'];
      const [file, envVar, flagged] = await Promise.all([
        agentTty(home, args),
        agentTty(home, args, { env: { AGENT_TTY_TIMEOUT_MS: '300' } }),
        agentTty(home, ['--timeout-ms', '350', ...args], { env: { AGENT_TTY_TIMEOUT_MS: '300' } }),
      ]);
      expect([file, envVar, flagged].map((r) => [r.code, r.env.result?.timeoutMs])).toEqual([[5, 250], [5, 300], [5, 350]]);
      const bad = await agentTty(home, ['list', '--log-level', 'loud']);
      expect([bad.code, bad.env.error?.code]).toEqual([2, 'INVALID_INPUT']);
    }
  });

  it('never interleaves concurrent types: each payload reaches the PTY in one piece', async () => {
    const { home, id } = await bashSession();
    // The payloads go to a cat that discards them (started before they are sent: bash prints cat-ready
    // while running the line, so everything typed after it queues for cat, unechoed).
    await ok(home, ['type', id, 'stty -echo; echo cat-ready; cat > /dev/null', '--append-newline']);
    await ok(home, ['wait', id, '--regex', '^cat-ready$']);
    const payloads = Array.from({ length: 6 }, (_, i) => `${String(i).repeat(1500)}\n`);
    const results = await Promise.all(payloads.map((p) => ok(home, ['type', id, p])));
    const log = readFileSync(join(home, 'sessions', id, 'events.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    for (const [i, r] of results.entries()) {
      const event = log.find((e) => e.seq === r.seq);
      expect(Buffer.from(event.data, 'base64').toString()).toBe(payloads[i]);
    }
    // Inputs are numbered in the order the host applied them: the seqs are distinct and all logged as typed.
    expect(new Set(results.map((r) => r.seq)).size).toBe(6);
    await ok(home, ['send-keys', id, 'ctrl+c']);
    // Typed before cat has died of the ctrl+c (a loaded machine), the line would go to cat: wait for the prompt.
    await ok(home, ['wait', id, '--regex', '^\\$ $']);
    await ok(home, ['type', id, 'stty echo; echo back', '--append-newline']);
    await ok(home, ['wait', id, '--regex', '^back$']);
  });
});

describe.concurrent('agent-tty snapshot', () => {
  it('takes structured snapshots (default) with ids, kept as artifacts', async () => {
    const { home, id } = await bashSession();
    await ok(home, ['resize', id, '--rows', '30', '--cols', '100']);
    await ok(home, ['type', id, 'echo back', '--append-newline']);
    await ok(home, ['wait', id, '--regex', '^back$']);
    const snap = await ok(home, ['snapshot', id, '--include-scrollback']);
    expect(snap).toMatchObject({ sessionId: id, format: 'structured', rows: 30, cols: 100, isAltScreen: false });
    expect(snap.snapshotId).toMatch(/^snap_/);
    expect(snap.visibleLines).toHaveLength(30);
    expect(Array.isArray(snap.scrollbackLines)).toBe(true);
    expect(snap.cells).toBeUndefined();
    expect(statSync(snap.artifactPath).mode & 0o777).toBe(0o600);
    const cells = await ok(home, ['snapshot', id, '--include-cells']); // ~1 MB of JSON through a pipe
    expect(cells.cells).toHaveLength(30);
    expect(cells.cells[0][0]).toHaveProperty('fg');
    const text = await ok(home, ['snapshot', id, '--format', 'text']);
    expect(text.text).toContain('back');
    const info = await ok(home, ['inspect', id]);
    expect(info.artifacts).toMatchObject({ byKind: { snapshot: 3 }, missingCount: 0, health: 'healthy' });
  });
});

describe.concurrent('agent-tty failures', () => {
  it('names each failure with the catalog code and the seed exit code', async () => {
    const { home, id } = await bashSession();
    // (Each command's own failure envelope is locked in agent-tty-golden; these are the other validations.)
    const cases: Array<[string[], string, number]> = [
      [['type', 'bad/id', 'x'], 'INVALID_SESSION_ID', 2],
      [['create', '--env', 'NOEQUALS'], 'INVALID_INPUT', 2],
      [['create', '--shell', ''], 'INVALID_INPUT', 2],
      [['create', '--idle-timeout-ms', 'soon'], 'INVALID_DURATION', 2],
      [['send-keys', id, 'hyper+x'], 'INVALID_KEYS', 2],
      [['type', id, 'x', '--file', 'y'], 'INVALID_INPUT', 2],
      [['wait', id, '--idle-ms', '-5'], 'INVALID_DURATION', 2],
      [['list', '--bogus'], 'INVALID_INPUT', 2],
      [['create', '--', '/no/such/program'], 'INVALID_INPUT', 2],
    ];
    const results = await Promise.all(cases.map(([args]) => agentTty(home, args)));
    for (const [i, [args, code, exit]] of cases.entries()) {
      const r = results[i];
      expect({ args, code: r.env.error?.code, exit: r.code, ok: r.env.ok }).toEqual({ args, code, exit, ok: false });
      expect(r.stderr).toBe('');
    }
  });

  it('prints one line on stderr without --json', async () => {
    const { home, id } = await bashSession();
    const { run } = await import('../helpers/cli.js');
    const { AGENT_TTY } = await import('../helpers/agent-tty.js');
    const r = await run(['node', AGENT_TTY, '--home', home, 'inspect', 'sess_missing']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('agent-tty: Session "sess_missing" was not found.\n');
  });
});

describe.concurrent('agent-tty destroy', () => {
  it('destroys gracefully, then refuses input and a second destroy', async () => {
    const { home, id } = await bashSession();
    expect((await agentTty(home, ['create', '--', '/no/such/program'])).code).toBe(2);
    const before = await ok(home, ['inspect', id]);
    expect(await ok(home, ['destroy', id])).toEqual({ sessionId: id, destroyed: true });
    const after = await ok(home, ['inspect', id]);
    expect(after.session).toMatchObject({ status: 'destroyed', hostPid: null, childPid: null });
    expect(after.terminationCategory).toBe('destroyed');
    for (const pid of [before.session.hostPid, before.session.childPid]) expect(running(pid)).toBe(false);
    const typed = await agentTty(home, ['type', id, 'x']);
    expect([typed.code, typed.env.error?.code]).toEqual([4, 'SESSION_NOT_RUNNING']);
    const again = await agentTty(home, ['destroy', id]);
    expect([again.code, again.env.error?.code]).toEqual([4, 'SESSION_ALREADY_DESTROYED']);
    expect((await ok(home, ['list'])).sessions).toEqual([]);
    // --all lists ended sessions too (here also the one whose program could not start).
    const all = (await ok(home, ['list', '--all'])).sessions;
    expect(all).toContainEqual(expect.objectContaining({ sessionId: id, status: 'destroyed' }));
    expect(all).toContainEqual(expect.objectContaining({ status: 'failed', command: ['/no/such/program'] }));
  });
});
