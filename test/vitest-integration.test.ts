import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT, run } from './helpers/cli.js';

/**
 * Runs real vitest on a user's project in a temporary folder, with tapedeck
 * linked in as a dependency, and checks goldens, update modes, messages and
 * cleanup from the outside, as a user would see them.
 */
const project = join(ROOT, '.tapedeck-tmp', `vitest-project-${process.pid}`);
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');

function vitest(args: string[], env: NodeJS.ProcessEnv = {}) {
  // CI is cleared unless a test sets it: the outer run may itself be on CI.
  return run(['node', VITEST, 'run', ...args], { cwd: project, env: { CI: '', TAPEDECK_UPDATE: '', FORCE_COLOR: '0', NO_COLOR: '1', ...env }, timeoutMs: 120_000 });
}

const golden = (name: string) => join(project, 'goldens/screen.test.ts', name);

beforeAll(() => {
  rmSync(project, { recursive: true, force: true });
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  cpSync(join(ROOT, 'test/fixtures/vitest-project'), project, { recursive: true });
  symlinkSync(ROOT, join(project, 'node_modules/tapedeck'));
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

// Each test runs vitest several times in a subprocess: generous limits for a loaded 2-core machine.
describe('tapedeck/vitest in a real vitest run', { timeout: 240_000 }, () => {
  test('a missing golden is written and passes; the format is reviewable', async () => {
    const res = await vitest(['screen.test.ts']);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const text = readFileSync(golden('bash-prints-a-banner.txt'), 'utf8');
    const lines = text.split('\n');
    expect(lines[0]).toBe('tapedeck-screen v1 cols=40 rows=6 cursor=2,0 cursor-visible=yes alt-screen=no');
    expect(lines[1]).toBe(`${'hello from bash'.padEnd(40)}│`);
    expect(lines[2]).toBe(`${'green'.padEnd(40)}│`);
    const styled = readFileSync(golden('bash-prints-a-banner-2.txt'), 'utf8');
    expect(styled).toContain('--- styles\n1:0-4 fg=green bold\n');
  });

  test('a changed screen fails with a readable diff and leaves a .new candidate', async () => {
    const res = await vitest(['screen.test.ts'], { BANNER: 'hello from zsh' });
    expect(res.code).toBe(1);
    const out = res.stdout + res.stderr;
    expect(out).toContain('screen differs from golden goldens/screen.test.ts/bash-prints-a-banner.txt');
    expect(out).toMatch(/-\s*hello from bash\s+│/);
    expect(out).toMatch(/\+\s*hello from zsh\s+│/);
    expect(out).toContain('vitest -u');
    expect(readFileSync(golden('bash-prints-a-banner.txt.new'), 'utf8')).toContain('hello from zsh');
    expect(readFileSync(golden('bash-prints-a-banner.txt'), 'utf8')).toContain('hello from bash');
  });

  test('-u rewrites the golden (and TAPEDECK_UPDATE=all does too)', async () => {
    const res = await vitest(['screen.test.ts', '-u'], { BANNER: 'hello from zsh' });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(readFileSync(golden('bash-prints-a-banner.txt'), 'utf8')).toContain('hello from zsh');
    expect(existsSync(golden('bash-prints-a-banner.txt.new'))).toBe(false);
    const env = await vitest(['screen.test.ts'], { BANNER: 'hello again', TAPEDECK_UPDATE: 'all' });
    expect(env.code).toBe(0);
    expect(readFileSync(golden('bash-prints-a-banner.txt'), 'utf8')).toContain('hello again');
  });

  test('on CI a missing golden fails, says how to create it, and nothing is written', async () => {
    rmSync(join(project, 'goldens'), { recursive: true, force: true });
    const res = await vitest(['screen.test.ts'], { CI: 'true' });
    expect(res.code).toBe(1);
    expect(res.stdout + res.stderr).toContain('golden goldens/screen.test.ts/bash-prints-a-banner.txt does not exist, and on CI (CI is set) goldens are never written');
    expect(existsSync(join(project, 'goldens'))).toBe(false);
  });

  test('obsolete goldens are reported, and removed under -u', async () => {
    expect((await vitest(['screen.test.ts'])).code).toBe(0);
    writeFileSync(golden('a-test-that-was-renamed.txt'), 'old\n');
    const report = await vitest(['screen.test.ts']);
    expect(report.code).toBe(0);
    expect(report.stdout + report.stderr).toContain('1 obsolete golden(s) no test in this file uses');
    expect(existsSync(golden('a-test-that-was-renamed.txt'))).toBe(true);
    const removed = await vitest(['screen.test.ts', '-u']);
    expect(removed.stdout + removed.stderr).toContain('removed 1 obsolete golden(s)');
    expect(existsSync(golden('a-test-that-was-renamed.txt'))).toBe(false);
    // A partial run proves nothing: no report.
    writeFileSync(golden('a-test-that-was-renamed.txt'), 'old\n');
    const partial = await vitest(['screen.test.ts', '-t', 'no test has this name', '-u']);
    expect(partial.stdout + partial.stderr).not.toContain('obsolete');
    expect(existsSync(golden('a-test-that-was-renamed.txt'))).toBe(true);
  });

  test('a tape a test replays from its goldens folder is never obsolete, not even under -u', async () => {
    mkdirSync(join(project, 'goldens/cast.test.ts'), { recursive: true });
    copyFileSync(join(ROOT, 'goldens/terminal/bash-echo.cast'), join(project, 'goldens/cast.test.ts/bash-echo.cast'));
    const res = await vitest(['cast.test.ts', '-u']);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout + res.stderr).not.toContain('obsolete');
    expect(existsSync(join(project, 'goldens/cast.test.ts/bash-echo.cast'))).toBe(true);
  });

  test('web-first matchers retry until the screen matches, and .not waits for text to go', async () => {
    const res = await vitest(['waits.test.ts']);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toContain('2 passed');
  });

  test('a failing test ends its terminal: no process outlives the run', async () => {
    const res = await vitest(['leak.test.ts']);
    expect(res.code).toBe(1);
    expect(res.stdout + res.stderr).toContain('deliberate failure');
    const left = execFileSync('ps', ['-eo', 'args']).toString().split('\n').filter((l) => /^sleep 4242$/.test(l.trim()));
    expect(left).toEqual([]);
  });

  test('protocol matchers: a tape replays cleanly, and an exchange is a golden', async () => {
    const env = { AGENT_SERVER: join(ROOT, 'examples/agent-server.mjs'), AGENT_TAPE: join(ROOT, 'goldens/agent-server.ndjson'), AGENT_SERVER_ROOT: join(ROOT, 'examples/project') };
    const first = await vitest(['protocol.test.ts'], env);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const tape = join(project, 'goldens/protocol.test.ts/one-exchange-from-a-live-server-is-a-golden.ndjson');
    const pairs = readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(pairs.map((p) => p.request)).toEqual(['{"op":"explain","code":"MT4099"}', '{"op":"fmt","path":"main.mty","check":true}']);
    expect(pairs[1].response).toContain('"would_reformat":true');
    const changed = await vitest(['protocol.test.ts'], { ...env, AGENT_SERVER_CRASH_ON: 'fmt' });
    expect(changed.code).toBe(1);
    expect(changed.stdout + changed.stderr).toContain('server exited (exit code 3) before completing this response');
  });

  test('parallel workers (threads and forks) write goldens without racing', async () => {
    rmSync(join(project, 'goldens'), { recursive: true, force: true });
    for (let i = 0; i < 4; i++) cpSync(join(project, 'screen.test.ts'), join(project, `copy${i}.test.ts`));
    for (const pool of ['threads', 'forks']) {
      rmSync(join(project, 'goldens'), { recursive: true, force: true });
      const res = await vitest([`--pool=${pool}`, '--maxWorkers=4', 'copy'], { BANNER: `pool ${pool}` });
      expect(res.code, res.stdout + res.stderr).toBe(0);
      for (let i = 0; i < 4; i++) {
        const dir = join(project, `goldens/copy${i}.test.ts`);
        expect(readdirSync(dir).sort()).toEqual(['bash-prints-a-banner-2.txt', 'bash-prints-a-banner.txt']);
        expect(readFileSync(join(dir, 'bash-prints-a-banner.txt'), 'utf8')).toContain(`pool ${pool}`);
      }
    }
  });
});
