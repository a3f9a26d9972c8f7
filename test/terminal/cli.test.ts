import { afterAll, describe, expect, it } from 'vitest';
import { execFile, spawn as spawnChild } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CastWriter } from '../../src/tape/asciicast/write.js';
import { playCast, readCast } from '../../src/index.js';
import { spawnTerminal } from '../../src/session/index.js';
import { CLI, processAlive } from '../helpers/cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'tapedeck-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI with stdin from `input` (or /dev/null). */
function cli(args: string[], input?: string): Promise<Run> {
  return new Promise((done) => {
    const child = execFile('node', [CLI, ...args], { cwd: dir, encoding: 'utf8' }, (err, stdout, stderr) => {
      done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin!.end(input ?? '');
  });
}


describe('tapedeck record (terminal, non-interactive) + snapshot', () => {
  it('records a program to its exit, exits with its code, and snapshots the screen', async () => {
    const out = join(dir, 'demo.cast');
    const rec = await cli(['record', '--out', out, '--rows', '5', '--cols', '30', '--title', 'demo', '--', 'sh', '-c', 'printf "one\\n\\033[31mtwo\\033[0m\\n"; exit 7']);
    expect(rec.code).toBe(7);
    const { header, events } = await readCast(out);
    expect(header).toMatchObject({ version: 3, cols: 30, rows: 5, title: 'demo', termType: 'xterm-256color' });
    expect(events.at(-1)).toMatchObject({ code: 'x', data: '7' });

    const text = await cli(['snapshot', out]);
    expect(text).toEqual({ code: 0, stdout: 'one\ntwo\n', stderr: '' });

    const json = await cli(['snapshot', out, '--format', 'json', '--include-cells']);
    expect(json.code).toBe(0);
    const envelope = JSON.parse(json.stdout);
    expect(envelope).toMatchObject({ ok: true, command: 'snapshot', result: { rows: 5, cols: 30, isAltScreen: false, exitStatus: 7, cursor: { row: 2, col: 0, visible: true } } });
    expect(envelope.result.visibleLines).toEqual(['one', 'two', '', '', '']);
    expect(envelope.result.cells[1][0]).toMatchObject({ char: 't', fg: { kind: 'palette', index: 1, slot: 'red' } });
    expect(typeof envelope.timestamp).toBe('string');
  });

  it('writes v2 with --format v2 and forwards piped stdin', async () => {
    const out = join(dir, 'piped.cast');
    const rec = await cli(['record', '--out', out, '--format', 'v2', '--', 'cat'], 'from stdin\n');
    expect(rec.code).toBe(0);
    const { header, events } = await readCast(out);
    expect(header.version).toBe(2);
    expect(events.filter((e) => e.code === 'i').map((e) => e.data).join('')).toBe('from stdin\n\x04');
    expect((await cli(['snapshot', out])).stdout).toBe('from stdin\nfrom stdin\n');
  });

  it('snapshots at a marker or a time, with scrollback', async () => {
    const fixture = join(ROOT, 'test/fixtures/casts/v3.cast');
    expect((await cli(['snapshot', fixture, '--at', 'greeted'])).stdout).toBe('hello world\n');
    expect((await cli(['snapshot', fixture, '--at', '0.3'])).stdout).toBe('hello \n');
    const out = join(dir, 'long.cast');
    await cli(['record', '--out', out, '--rows', '3', '--', 'seq', '1', '10']);
    expect((await cli(['snapshot', out])).stdout).toBe('9\n10\n');
    expect((await cli(['snapshot', out, '--include-scrollback'])).stdout).toBe(Array.from({ length: 10 }, (_, i) => `${i + 1}\n`).join(''));
  });

  it('rejects bad input with exit 2, a file:line message and no half-written tape', async () => {
    const bad = await cli(['record', '--out', join(dir, 'bad.cast'), '--format', 'v9', '--', 'true']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--format expects v2 or v3');
    const missing = await cli(['record', '--out', join(dir, 'missing.cast'), '--', 'no-such-program-tapedeck']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^tapedeck: cannot start "no-such-program-tapedeck"/);
    const noCommand = await cli(['record', '--out', join(dir, 'none.cast')]);
    expect(noCommand.code).toBe(2);
    // Nothing under those names, and no temporary file left beside them.
    expect(readdirSync(dir).filter((f) => /^\.?(bad|missing|none)\.cast/.test(f))).toEqual([]);

    const malformed = await cli(['snapshot', join(ROOT, 'test/fixtures/casts/v1.cast'), '--at', 'nope']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/v1\.cast: no marker "nope"/);
    const badCast = join(dir, 'broken.cast');
    writeFileSync(badCast, '{"version": 2, "width": 10, "height": 3}\n[0.1, "o", "ok"]\n[oops\n');
    const broken = await cli(['snapshot', badCast]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toBe(`tapedeck: ${badCast}:3: event is not valid JSON (${(() => { try { JSON.parse('[oops'); } catch (e) { return (e as Error).message; } })()})\n`);
    expect(broken.stderr).not.toContain('    at ');
  });
});

describe('tapedeck record (terminal, interactive under a PTY)', () => {
  it('passes keys through, follows resizes, drops markers on ctrl+] and ends with the child', async () => {
    const out = join(dir, 'interactive.cast');
    const t = spawnTerminal('node', [CLI, 'record', '--out', out, '--', 'bash', '--norc', '--noprofile'], {
      rows: 8, cols: 40, cwd: dir, env: { PS1: 'rec$ ', HISTFILE: '/dev/null' },
    });
    try {
      await t.waitForText('rec$ ');
      t.type('echo one\r');
      await t.waitForText('one\nrec$ ');
      t.press('ctrl+]');
      t.resize(10, 50);
      // The resize travels as SIGWINCH through the recorder to the inner PTY; on a loaded machine
      // the typed command can overtake it, so ask again until bash sees the new size.
      for (let attempt = 0; ; attempt++) {
        t.type('stty size\r');
        try {
          await t.waitForText('10 50', { timeoutMs: 1000 });
          break;
        } catch (err) {
          if (attempt === 4) throw err;
        }
      }
      t.type('exit 4\r');
      expect((await t.waitForExit({ timeoutMs: 10_000 })).exitCode).toBe(4);
    } finally {
      await t.dispose();
    }
    const { events } = await readCast(out);
    expect(events.filter((e) => e.code === 'm').map((e) => e.data)).toEqual(['marker-1']);
    expect(events.some((e) => e.code === 'r' && e.data === '50x10')).toBe(true);
    expect(events.filter((e) => e.code === 'i').map((e) => e.data).join('')).toMatch(/^echo one\r(stty size\r)+exit 4\r$/);
    expect(events.at(-1)).toMatchObject({ code: 'x', data: '4' });
    expect((await cli(['snapshot', out, '--at', 'marker-1'])).stdout).toBe('rec$ echo one\none\nrec$ \n');
  });
});

describe('process exit hook', () => {
  it('kills terminals a script forgot to dispose when it exits', async () => {
    const script = `
      import { spawnTerminal } from ${JSON.stringify(join(ROOT, 'dist/session/index.js'))};
      // Ignores SIGHUP, so closing the PTY when this process dies would not end it: only the hook does.
      const t = spawnTerminal('sh', ['-c', 'trap "" HUP; echo ready; while :; do sleep 1; done']);
      await t.waitForText('ready');
      console.log(t.pid);
      process.exit(0);
    `;
    const child = spawnChild('node', ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout!.on('data', (d) => (stdout += d));
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(0);
    const pid = Number(stdout.trim());
    expect(pid).toBeGreaterThan(0);
    try {
      const deadline = Date.now() + 3000;
      while (processAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(processAlive(pid)).toBe(false);
    } finally {
      // If the hook failed, don't leak the orphan into the rest of the run.
      if (processAlive(pid)) process.kill(-pid, 'SIGKILL');
    }
  });
});

describe('playCast from the build (worker thread reads the cast)', () => {
  it('gives the same screen as reading on the main thread, with flow control on a 12 MB tape', async () => {
    const dist = (await import(join(ROOT, 'dist/index.js'))) as typeof import('../../src/index.js');
    const out = join(dir, 'big.cast');
    const w = new CastWriter(out, { cols: 60, rows: 10 });
    let size = 0;
    // Markers, resizes and bytes that are not UTF-8 (stored as tapedeck.bytes events on the next line) all
    // along: the build reads the start on the main thread and hands the rest to its worker at some line.
    for (let i = 0; size < 12 * 1024 * 1024; i++) {
      const chunk = i % 997 === 0 ? Buffer.from([0x1b, 0x5b, 0x31, 0x6d, 0x41 + (i % 26), 0xff, 0xfe, 0x0d, 0x0a]) : Buffer.from(`\x1b[3${i % 8}mline ${i}\x1b[0m ${'é✓ '.repeat(i % 20)}\r\n`);
      w.output(i / 1000, chunk);
      size += chunk.length;
      if (i === 5000) w.marker(i / 1000, 'early');
      else if (i % 4001 === 0) w.marker(i / 1000, `m${i}`);
      if (i % 10007 === 0) w.resize(i / 1000, 60 + (i % 7), 10 + (i % 3));
    }
    w.exit(size / 1e6, 3);
    w.close();
    const viaWorker = await dist.playCast(out, undefined, { scrollback: 50 });
    const inThread = await playCast(out, undefined, { scrollback: 50 });
    expect(viaWorker.screen.snapshot({ includeScrollback: true, includeCells: true })).toEqual(inThread.screen.snapshot({ includeScrollback: true, includeCells: true }));
    expect({ ...viaWorker, screen: undefined }).toEqual({ ...inThread, screen: undefined });
    expect(viaWorker.exitStatus).toBe(3);
    expect(viaWorker.markers.indexOf('early')).toBe(2);
    expect(viaWorker.markers.length).toBeGreaterThan(20);
    const early = await dist.playCast(out, { marker: 'early' });
    expect(early.screen.visibleLines()[8]).toBe('line 5000 ');
    for (const p of [viaWorker, inThread, early]) p.screen.dispose();
  });

  it('reports malformed lines from the worker as the same TapedeckError', async () => {
    const dist = await import(join(ROOT, 'dist/index.js'));
    const bad = join(dir, 'worker-bad.cast');
    // Over 1 MB, so the build reads it on a worker thread (smaller tapes are read in-thread).
    const filler = Array.from({ length: 20_000 }, () => `[0.001, "o", "${'x'.repeat(60)}"]`).join('\n');
    writeFileSync(bad, `{"version": 3, "term": {"cols": 10, "rows": 3}}\n${filler}\n[0.1, "r", "tall"]\n`);
    await expect(dist.playCast(bad)).rejects.toMatchObject({ name: 'TapedeckError', code: 'MALFORMED_CAST', exitCode: 2, location: { file: bad, line: 20_002 } });
  });
});
