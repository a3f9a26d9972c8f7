import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { vitestProject, type VitestProject } from '../helpers/vitest-project.js';

/**
 * Watch mode with the setup docs/vitest.md ("Watch mode") documents: the program a
 * test spawns is not imported, so vitest re-runs only because its folder is listed in
 * forceRerunTriggers. vitest runs in watch mode with a pipe as stdin (as an editor's
 * task runner or a script would start it); the spawned script changes and the test
 * runs again against the new script. (Relative globs like 'bin/**' never match:
 * vitest matches the triggers against absolute paths.)
 */
const CONFIG = `import { defineConfig } from 'vitest/config';
export default defineConfig({
  test: {
    setupFiles: ['tapedeck/vitest'],
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    forceRerunTriggers: ['**/package.json/**', '**/vitest.config.*/**', '**/src/**', '**/bin/**'],
  },
});
`;
const TEST = `import { expect, test } from 'vitest';
import { spawnTerminal } from 'tapedeck';

test('the greeting', async () => {
  const term = spawnTerminal('bash', ['bin/greet.sh'], { rows: 4, cols: 40, cwd: new URL('..', import.meta.url).pathname });
  await expect(term).toContainText('hello, version one', { timeoutMs: 3000 });
});
`;
const script = (version: string) => `printf 'hello, version ${version}\\n'\nread -r line\n`;

let project: VitestProject | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  // vitest, its workers and their terminals: the whole process group.
  if (child && child.exitCode === null && child.pid) {
    const exited = new Promise((r) => child!.once('exit', r));
    process.kill(-child.pid, 'SIGTERM');
    const timer = setTimeout(() => child!.pid && process.kill(-child!.pid, 'SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
  project?.remove();
});

/** Resolves when the output so far matches, with what was read; rejects when vitest exits first. */
function waitFor(output: () => string, pattern: RegExp, proc: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (pattern.test(output())) {
        proc.stdout!.off('data', check);
        proc.off('exit', exited);
        resolve(output());
      }
    };
    const exited = (code: number | null) => reject(new Error(`vitest exited (${code}) before ${pattern}:\n${output()}`));
    proc.stdout!.on('data', check);
    proc.once('exit', exited);
    check();
  });
}

describe('watch mode', () => {
  test('a change to the spawned program re-runs its test, against the changed program', async () => {
    project = vitestProject({ 'vitest.config.ts': CONFIG, 'test/greet.test.ts': TEST, 'bin/greet.sh': script('one') }, 'watch');
    let out = '';
    child = spawn('node', [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'watch', '--reporter=default'], {
      cwd: project.dir,
      env: { ...process.env, CI: '', TAPEDECK_UPDATE: '', FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true, // its own process group, ended as one
    });
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
    const first = await waitFor(() => out, /(Waiting|Watching) for file changes/, child);
    expect(first).toMatch(/Tests +1 passed/);
    // The re-run reads the changed script: the greeting is gone, so the test now fails. The watcher can fire
    // between the truncation and the write, so a re-run may see the empty script: then the file is written
    // again (a new change event) until a re-run has seen the new text, at most 5 times.
    let rerun = '';
    for (let attempt = 0; attempt < 5 && !rerun.includes('hello, version two'); attempt++) {
      const mark = out.length;
      project.write('bin/greet.sh', script('two'));
      rerun = await waitFor(() => out.slice(mark), /Tests +1 failed[\s\S]*(Waiting|Watching) for file changes/, child);
    }
    expect(rerun).toContain('hello, version two');
    expect(rerun).not.toMatch(/Tests +1 passed/);
  }, 60_000);
});
