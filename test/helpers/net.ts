import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach } from 'vitest';
import { CLI, ROOT, childEnv } from './cli.js';

export interface Background {
  child: ChildProcess;
  /** The address it printed ("listening on ADDR"). */
  address: string;
  stderr: () => string;
  stdout: () => string;
  /** SIGTERM, then its exit code and output. */
  stop: () => Promise<{ code: number | null; stderr: string; stdout: string }>;
}

const running = new Set<ChildProcess>();
afterEach(() => {
  for (const c of running) c.kill('SIGKILL');
  running.clear();
});

/** Starts `tapedeck ARGS` and waits (on its output, not a clock) until it says where it listens. */
export function startTapedeck(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 20_000): Promise<Background> {
  const child = spawn('node', [CLI, ...args], { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let err = '';
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" within ${timeoutMs} ms: ${err}`)), timeoutMs);
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /tapedeck \w+: listening on (\S+)/.exec(err);
      if (!m) return;
      clearTimeout(timer);
      child.stderr!.removeAllListeners('data');
      child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      resolve({
        child,
        address: m[1],
        stderr: () => err,
        stdout: () => out,
        stop: async () => {
          child.kill('SIGTERM');
          const code = await exited;
          running.delete(child);
          return { code, stderr: err, stdout: out };
        },
      });
    });
    void exited.then((code) => reject(new Error(`exited ${code} before listening: ${err}`)));
  });
}
