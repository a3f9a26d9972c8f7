import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TapedeckError } from '../../src/index.js';
import { spawnTerminal, trackedCount, type Terminal } from '../../src/session/index.js';
import { processAlive } from '../helpers/cli.js';

const open: Terminal[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.dispose()));
});
afterAll(() => {
  // Every terminal this file started is gone: no child process of this worker remains.
  const children = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.trim() && !/\bps$/.test(l.trim()));
  expect(children).toEqual([]);
  expect(trackedCount()).toBe(0);
});

function spawn(...args: Parameters<typeof spawnTerminal>): Terminal {
  const t = spawnTerminal(...args);
  open.push(t);
  return t;
}

const PROMPT = 'tdk$ ';

/** bash with no rc files and a known prompt. */
function bash(options: Parameters<typeof spawnTerminal>[2] = {}): Terminal {
  return spawn('bash', ['--norc', '--noprofile'], { ...options, env: { PS1: PROMPT, HISTFILE: '/dev/null', ...options.env } });
}


async function rejection(p: Promise<unknown> | (() => unknown)): Promise<TapedeckError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    expect(err).toBeInstanceOf(TapedeckError);
    return err as TapedeckError;
  }
  throw new Error('expected a TapedeckError');
}

describe('spawnTerminal with bash', () => {
  it('shows the prompt, runs typed commands and reports the cursor', async () => {
    const t = bash({ rows: 10, cols: 40 });
    await t.waitForText(PROMPT);
    const at = await t.waitForCursor(0, PROMPT.length);
    expect(at).toMatchObject({ cursorRow: 0, cursorCol: 5 });
    t.type('echo $((6 * 7))');
    t.press('Enter');
    const hit = await t.waitForRegex(/^42$/m);
    expect(hit.matchedText).toBe('42');
    await t.waitForText(`42\n${PROMPT}`);
    const snap = await t.snapshot();
    expect(snap).toMatchObject({ rows: 10, cols: 40, isAltScreen: false, cursor: { row: 2, col: 5, visible: true } });
    // Written spaces stay (the prompt's), never-written cells are trimmed.
    expect(snap.visibleLines.slice(0, 4)).toEqual([`${PROMPT}echo $((6 * 7))`, '42', PROMPT, '']);
    expect(snap.capturedAtSeq).toBeGreaterThan(0);
  });

  it('pins TERM, LANG, TZ, leaves LINES/COLUMNS unset and drops colour-forcing variables', async () => {
    const saved = { FORCE_COLOR: process.env.FORCE_COLOR, COLORTERM: process.env.COLORTERM };
    process.env.FORCE_COLOR = '3';
    process.env.COLORTERM = 'truecolor';
    let t: Terminal;
    try {
      t = bash({ rows: 12, cols: 50 });
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await t.waitForText(PROMPT);
    // Asked of a child: bash itself sets (unexported) COLUMNS/LINES from the PTY.
    t.type('sh -c \'echo "[$TERM|$LANG|$TZ|${COLUMNS-unset}|${LINES-unset}|${FORCE_COLOR-none}|${COLORTERM-none}]"\'\r');
    await t.waitForText('[xterm-256color|C.UTF-8|UTC|unset|unset|none|none]');
  });

  it('lets the caller override the pinned environment', async () => {
    const t = spawn('sh', ['-c', 'echo "$TERM/$TZ/${GONE-removed}"'], { env: { TZ: 'Europe/Paris', GONE: undefined }, term: 'vt100' });
    await t.exited;
    expect(await t.text()).toBe('vt100/Europe/Paris/removed');
  });

  it('resizes the PTY and the screen', async () => {
    const t = bash({ rows: 24, cols: 80 });
    await t.waitForText(PROMPT);
    expect(t.resize(10, 33)).toMatchObject({ rows: 10, cols: 33 });
    t.type('stty size\r');
    await t.waitForText('10 33');
    expect((await t.snapshot()).cols).toBe(33);
    expect(t.events.events.some((e) => e.type === 'resize' && e.rows === 10 && e.cols === 33)).toBe(true);
    expect((await rejection(() => t.resize(0, 10))).code).toBe('INVALID_DIMENSIONS');
  });

  it('pastes bracketed when the program enabled it, raw otherwise', async () => {
    const t = bash();
    await t.waitForText(PROMPT);
    expect(t.screen.modes.bracketedPaste).toBe(true); // readline turns on DECSET 2004
    t.paste('echo pasted');
    const pasteEvent = t.events.events.at(-1);
    expect(pasteEvent).toMatchObject({ type: 'input', kind: 'paste', text: 'echo pasted' });
    expect(pasteEvent?.type === 'input' && pasteEvent.data.toString()).toBe('\x1b[200~echo pasted\x1b[201~');
    t.press('Enter');
    await t.waitForText(`pasted\n${PROMPT}`);

    const cat = spawn('cat');
    cat.paste('raw text\n');
    await cat.waitForText('raw text\nraw text');
    const ev = cat.events.events.find((e) => e.type === 'input');
    expect(ev?.type === 'input' && ev.data.toString()).toBe('raw text\n');
  });

  it('logs every event with rising seq and time: output, input (keys and bytes), marker, resize, signal, exit', async () => {
    const t = spawn('cat', [], { rows: 5, cols: 20 });
    const keys = t.press('h', 'i', 'Enter');
    expect(keys).toMatchObject({ accepted: ['h', 'i', 'Enter'], bytesWritten: 3 });
    await t.waitForText('hi\nhi');
    t.marker('after-hi');
    t.resize(6, 21);
    t.signal('TERM');
    const exit = await t.waitForExit();
    expect(exit).toEqual({ exitCode: 0, signal: 'SIGTERM' });
    const events = t.events.events;
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    for (let i = 1; i < events.length; i++) expect(events[i].time).toBeGreaterThanOrEqual(events[i - 1].time);
    const input = events.find((e) => e.type === 'input');
    expect(input).toMatchObject({ kind: 'keys', keys: ['h', 'i', 'Enter'] });
    expect(input?.type === 'input' && [...input.data]).toEqual([0x68, 0x69, 0x0d]);
    expect(events.filter((e) => e.type !== 'output' && e.type !== 'input').map((e) => e.type)).toEqual(['marker', 'resize', 'signal', 'exit']);
    expect(events.at(-1)).toMatchObject({ type: 'exit', signal: 'SIGTERM' });
  });

  it('reports exit codes and signals', async () => {
    const t = spawn('sh', ['-c', 'exit 3']);
    expect(await t.exited).toEqual({ exitCode: 3, signal: null });
    expect(t.exitCode).toBe(3);
    expect(t.running).toBe(false);
    expect((await rejection(() => t.type('x'))).code).toBe('SESSION_NOT_RUNNING');

    const s = spawn('sleep', ['30']);
    s.signal('int');
    expect(await s.waitForExit()).toEqual({ exitCode: 0, signal: 'SIGINT' });
  });

  it('a program that closes its terminal before it exits gets its own exit status, not a hangup', async () => {
    // Closing the master on the EIO that follows would hang the terminal up, and the kernel
    // would send the still-running program SIGHUP (exit 129 instead of 3).
    const t = spawn('python3', ['-c', 'import os, time\nprint("closing", flush=True)\nfor fd in (0, 1, 2): os.close(fd)\ntime.sleep(0.1)\nos._exit(3)']);
    expect(await t.exited).toEqual({ exitCode: 3, signal: null });
    expect(await t.text()).toContain('closing');
  });

  it('rejects unknown signals and keys with structured validation errors', async () => {
    const t = spawn('cat');
    const sig = await rejection(() => t.signal('BOGUS'));
    expect(sig).toMatchObject({ code: 'INVALID_SIGNAL', exitCode: 2 });
    expect(sig.message).toContain('"BOGUS"');
    const key = await rejection(() => t.press('Enter', 'ctrl+Frobnicate'));
    expect(key).toMatchObject({ code: 'INVALID_KEYS', exitCode: 2, details: { key: 'ctrl+Frobnicate' } });
    expect(key.message).toContain('"ctrl+Frobnicate"');
    // Nothing of a rejected key sequence was sent.
    expect(t.events.events.filter((e) => e.type === 'input')).toEqual([]);
  });

  it('fails to start a missing program or directory with a usage error', async () => {
    const err = await rejection(() => spawn('no-such-program-tapedeck'));
    expect(err).toMatchObject({ code: 'SPAWN_FAILED', exitCode: 2 });
    expect(err.message).toContain('"no-such-program-tapedeck"');
    const cwd = await rejection(() => spawn('true', [], { cwd: '/no/such/dir' }));
    expect(cwd).toMatchObject({ code: 'SPAWN_FAILED', exitCode: 2 });
    expect(cwd.message).toContain('"/no/such/dir"');
  });
});

describe('waits', () => {
  it('times out with WAIT_TIMEOUT (exit 5) and the current screen in the message', async () => {
    const t = bash();
    await t.waitForText(PROMPT);
    t.type('echo visible-marker\r');
    await t.waitForText(`visible-marker\n${PROMPT}`);
    const started = Date.now();
    const err = await rejection(t.waitForText('never-appears', { timeoutMs: 300 }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(err).toMatchObject({ code: 'WAIT_TIMEOUT', exitCode: 5 });
    expect(err.message).toContain('"never-appears"');
    expect(err.message).toContain('visible-marker');
    expect(err.details?.screen).toContain(PROMPT.trimEnd());
  });

  it('uses a finite default timeout', async () => {
    const { DEFAULT_WAIT_TIMEOUT_MS } = await import('../../src/session/index.js');
    expect(DEFAULT_WAIT_TIMEOUT_MS).toBe(5000);
  });

  it('fails fast when the program exits before the text appears', async () => {
    const t = spawn('sh', ['-c', 'echo bye']);
    const err = await rejection(t.waitForText('hello', { timeoutMs: 3000 }));
    expect(err).toMatchObject({ code: 'SESSION_NOT_RUNNING', exitCode: 4 });
    expect(err.message).toContain('bye');
  });

  it('waits for idle output and a stable screen', async () => {
    // Prints a tick every 50 ms, 8 times, then goes quiet.
    const t = spawn('sh', ['-c', 'for i in 1 2 3 4 5 6 7 8; do echo tick$i; sleep 0.05; done; sleep 30']);
    const idle = await t.waitForIdle(300);
    expect(await t.text()).toContain('tick8');
    expect(idle.idleMs).toBe(300);
    const stable = await t.waitForStable(100);
    expect(stable.cursorRow).toBe(8);
    const err = await rejection(t.waitForIdle(1000, { timeoutMs: 200 }));
    expect(err.code).toBe('WAIT_TIMEOUT');
  });

  it('stable waits for the screen to stop changing, not for output to stop', async () => {
    // Redraws the same frame every 20 ms: output never idles, but the screen is stable. One process with a
    // timer (a shell loop forks a sleep per frame, which a loaded machine can hold up past the idle window).
    const t = spawn('node', ['-e', 'setInterval(() => process.stdout.write("\\x1b[Hsame frame"), 20)']);
    await t.waitForText('same frame');
    await t.waitForStable(150, { timeoutMs: 2000 });
    expect((await rejection(t.waitForIdle(600, { timeoutMs: 1200 }))).code).toBe('WAIT_TIMEOUT');
  });

  it('waitForExit times out while the program runs', async () => {
    const t = spawn('sleep', ['30']);
    expect((await rejection(t.waitForExit({ timeoutMs: 100 }))).code).toBe('WAIT_TIMEOUT');
  });
});

describe('cleanup', () => {
  it('kill() and dispose() end the program, its background jobs and the PTY', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapedeck-cleanup-'));
    try {
      const t = bash();
      await t.waitForText(PROMPT);
      t.type(`sleep 300 & echo "bg=$!"\r`);
      const { matchedText } = await t.waitForRegex(/bg=\d+/);
      const bg = Number(matchedText!.slice(3));
      expect(processAlive(bg)).toBe(true);
      expect(trackedCount()).toBeGreaterThan(0);
      await t.dispose();
      expect(t.running).toBe(false);
      expect(processAlive(t.pid)).toBe(false);
      // Give the kernel a moment to deliver the signal to the job; poll, never a fixed sleep.
      const deadline = Date.now() + 10_000;
      while (processAlive(bg) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(processAlive(bg)).toBe(false);
      await t.dispose(); // second call is a no-op
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a background job outlives no shell: killed before it could hang its jobs up, they still end with dispose()', async () => {
    const t = bash();
    await t.waitForText(PROMPT);
    t.type(`sleep 300 & echo "bg=$!"\r`);
    const { matchedText } = await t.waitForRegex(/bg=\d+/);
    const bg = Number(matchedText!.slice(3));
    t.signal('SIGKILL'); // the shell dies at once: nothing hangs up its job
    await t.waitForExit();
    expect(processAlive(bg)).toBe(true);
    await t.dispose();
    const deadline = Date.now() + 10_000;
    while (processAlive(bg) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(processAlive(bg)).toBe(false);
  });

  it('never signals the pid of a program that already ended: a new process may have it by then', async () => {
    const t = spawn('sh', ['-c', 'echo bye']);
    await t.waitForExit();
    const signalled: (string | number)[] = [];
    const kill = vi.spyOn(process, 'kill').mockImplementation((pid) => {
      signalled.push(pid);
      return true;
    });
    try {
      t.resize(10, 30);
      await t.dispose();
    } finally {
      kill.mockRestore();
    }
    expect(signalled.filter((pid) => Math.abs(Number(pid)) === t.pid)).toEqual([]);
  });

  it('kill() escalates to SIGKILL for a program that ignores SIGHUP', async () => {
    const t = spawn('sh', ['-c', 'trap "" HUP TERM; echo ready; while :; do sleep 1; done']);
    await t.waitForText('ready');
    const exit = await t.kill(200);
    expect(exit.signal).toBe('SIGKILL');
    expect(processAlive(t.pid)).toBe(false);
  });
});
