import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { CLI, childEnv, processAlive, tempDir } from '../helpers/cli.js';

/**
 * `tapedeck vhs` stops on SIGTERM and SIGINT in the middle of a tape (it once
 * ignored SIGTERM, and `timeout 10 tapedeck vhs ...` hung): the bin exits
 * with 128 + the signal, the tape's shell is gone, and no output was written.
 */
const tmp = tempDir('tapedeck-vhs-signals-');
afterAll(() => tmp.cleanup());

const until = async (check: () => boolean, ms: number, what: string) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
  test(`${signal} in the middle of a --realtime Sleep ends the run (exit ${code}), its shell, and writes nothing`, async () => {
    const dir = join(tmp.dir, signal);
    mkdirSync(join(dir, 'home'), { recursive: true });
    writeFileSync(join(dir, 's.tape'), 'Output s.txt\nOutput s.gif\nType "echo $$ > shell.pid"\nEnter\nSleep 60s\n');
    const child = spawn(process.execPath, [CLI, 'vhs', 's.tape', '--realtime'], { cwd: dir, env: childEnv({ HOME: join(dir, 'home') }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (c, s) => resolve({ code: c, signal: s })));
    try {
      await until(() => existsSync(join(dir, 'shell.pid')) && readFileSync(join(dir, 'shell.pid'), 'utf8').endsWith('\n'), 30_000, 'the tape to start');
      const shell = Number(readFileSync(join(dir, 'shell.pid'), 'utf8'));
      const sent = Date.now();
      child.kill(signal);
      const result = await Promise.race([exited, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no exit 10 s after ${signal}: ${stderr}`)), 10_000))]);
      expect(result.code).toBe(code);
      expect(Date.now() - sent).toBeLessThan(10_000);
      await until(() => !processAlive(shell), 5_000, 'the shell to end');
      expect(existsSync(join(dir, 's.txt'))).toBe(false);
      expect(existsSync(join(dir, 's.gif'))).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  });
}
