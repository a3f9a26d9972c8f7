import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI, ROOT, childEnv, tapedeck, useTempDirs } from '../helpers/cli.js';
import { spawnTerminal } from '../../src/index.js';

/**
 * Issue 26.11: the crashes and the hang a 10,000-input fuzz run found, each
 * driven as the fuzz run drove it (test/fuzz.test.ts is the run itself).
 */
const temp = useTempDirs();
const ECHO = join(ROOT, 'examples/echo-server.mjs');

describe('fuzz findings (26.11)', () => {
  test('fix --apply --from-stdin with "fix": null is a bad-input error naming <stdin>:1, not an internal error', async () => {
    const span = { file: 'x', line: 1, col: 1, len: 1, byte_start: 0, byte_end: 1 };
    const envelope = { schema_version: '1.0', code: 'TD1001', severity: 'error', span, title: 't', prose: 'p', fix: null };
    const r = await tapedeck(['fix', '--apply', '--from-stdin'], { input: `${JSON.stringify(envelope)}\n` });
    expect(r.stderr).toBe('tapedeck: <stdin>:1: not a valid envelope: "fix" must be an object with "alternatives" (or left out)\n');
    expect(r.code).toBe(2);
  });

  test('resizing a terminal whose program has just ended (what a cast --update does at a resize step) never throws EBADF', async () => {
    // The window: node-pty closes the master when the child's output ends, before the exit is reported.
    let resizes = 0;
    for (let k = 0; k < 20; k++) {
      const term = spawnTerminal('sh', ['-c', 'printf x; exit 0'], { rows: 5, cols: 20 });
      for (let i = 0; term.running && i < 100_000; i++) {
        term.resize(5 + (i % 3), 20 + (i % 7)); // threw "ioctl(2) failed, EBADF" in 27 of 30 terminals
        resizes++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await term.dispose();
    }
    expect(resizes).toBeGreaterThan(20);
  });

  test('a .cast, a tape or a config that is a FIFO: exit 2 at once naming it, never a hang', async () => {
    const dir = temp();
    for (const name of ['t.cast', 't.ndjson', 'c.json']) execFileSync('mkfifo', [join(dir, name)]);
    const runs: Array<[string[], string]> = [
      [['replay', 't.cast', '--', 'true'], 't.cast'],
      [['snapshot', 't.cast'], 't.cast'],
      [['export', 't.cast', '--format', 'v2', '--out', 'o.cast'], 't.cast'],
      [['replay', 't.cast', '--update', '--', 'true'], 't.cast'],
      [['replay', 't.ndjson', '--', 'node', ECHO], 't.ndjson'],
      [['serve', 't.ndjson'], 't.ndjson'],
      [['replay', '--config', 'c.json', 'x.ndjson', '--', 'true'], 'c.json'],
    ];
    for (const [args, file] of runs) {
      // A hang is the run helper's timeout: the test fails with the command named.
      const r = await tapedeck(args, { cwd: dir, timeoutMs: 20_000 });
      expect(r.stderr, args.join(' ')).toContain(`${file}: not a regular file: it is a named pipe (FIFO)`);
      expect(r.code, args.join(' ')).toBe(2);
    }
    // A FIFO left as a pending candidate is no candidate: review lists and accepts nothing, at once.
    execFileSync('mkdir', [join(dir, 'goldens')]);
    execFileSync('mkfifo', [join(dir, 'goldens/a.txt.new')]);
    const review = await tapedeck(['review', '--accept', 'all'], { cwd: dir, timeoutMs: 20_000 });
    expect(review.stderr).toBe('tapedeck review: nothing pending\n');
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal} ends a snapshot waiting on a pipe that never ends`, async () => {
      const tmp = mkdtempSync(join(tmpdir(), 'tapedeck-sig-'));
      try {
        const child = spawn('node', [CLI, 'snapshot', '/dev/stdin'], { env: childEnv({ TMPDIR: tmp }), stdio: ['pipe', 'pipe', 'pipe'] });
        child.stdin.write('{"version":2,"width":20,"height":3}\n'); // then nothing, and stdin stays open
        const spool = join(tmp, `tapedeck-${process.getuid!()}`);
        // It is reading once its spool file exists.
        for (const started = Date.now(); Date.now() - started < 30_000; await new Promise((r) => setTimeout(r, 20))) {
          let names: string[] = [];
          try {
            names = readdirSync(spool);
          } catch {
            names = [];
          }
          if (names.some((n) => n.endsWith('-cast'))) break;
        }
        expect(readdirSync(spool).some((n) => n.endsWith('-cast'))).toBe(true);
        const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, sig) => resolve({ code, signal: sig })));
        child.kill(signal);
        const timeout = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 15_000).unref());
        const outcome = await Promise.race([exited, timeout]);
        if (outcome === 'hung') child.kill('SIGKILL');
        expect(outcome).not.toBe('hung');
        // The spool file goes with it.
        expect(readdirSync(spool).filter((n) => n.endsWith('-cast'))).toEqual([]);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    });
  }

  test('bad input the fuzz run found named with the file only now names the line (the header, for the command)', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'nocmd.cast'), '{"version":2,"width":20,"height":3}\n[0.1,"o","x"]\n');
    const nocmd = await tapedeck(['replay', 'nocmd.cast'], { cwd: dir });
    expect(nocmd.stderr).toContain('nocmd.cast:1: the tape does not record its command');
    writeFileSync(join(dir, 'cut.ndjson'), '{"request":"{\\"id\\":1}","resp');
    const cut = await tapedeck(['replay', 'cut.ndjson', '--', 'node', ECHO], { cwd: dir });
    expect(cut.stderr).toContain('cut.ndjson:1: the tape has no pairs');
    writeFileSync(join(dir, 'v1.cast'), '{"version":1,"width":20,"height":3,"stdout":[[0.1,"x"]]}');
    const v1 = await tapedeck(['replay', 'v1.cast', '--update', '--', 'sh', '-c', 'printf y'], { cwd: dir });
    expect(v1.stderr).toContain('v1.cast:1: --update cannot rewrite an asciicast v1 tape');
    for (const r of [nocmd, cut, v1]) expect(r.code).toBe(2);
  });
});
