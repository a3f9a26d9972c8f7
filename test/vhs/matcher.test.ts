import { cpSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { ROOT, run, tempDir } from '../helpers/cli.js';

/**
 * `await expect('demo.tape').toMatchVhsOutputs()` in a vitest project of its own
 * (test/fixtures/vhs-project, copied to a temporary folder): a local run writes the
 * missing .ascii, a changed tape fails on CI with the frame diff and writes nothing,
 * and vitest -u rewrites the output.
 */
const tmp = tempDir('tapedeck-vhs-matcher-');
afterAll(() => tmp.cleanup());

test('toMatchVhsOutputs in a fixture project: written locally, drift on CI, -u rewrites', async () => {
  const dir = join(tmp.dir, 'project');
  cpSync(join(ROOT, 'test/fixtures/vhs-project'), dir, { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const vitest = (args: string[], env: NodeJS.ProcessEnv) =>
    run(['node', join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...args], { cwd: dir, env: { TAPEDECK_DIST: join(ROOT, 'dist'), HOME: dir, TAPEDECK_UPDATE: '', ...env }, timeoutMs: 120_000 });
  const first = await vitest([], { CI: '' });
  expect(first.code, first.stdout + first.stderr).toBe(0);
  const written = readFileSync(join(dir, 'demo.ascii'), 'utf8');
  expect(written).toContain('> echo from-the-matcher\nfrom-the-matcher\n>\n');
  writeFileSync(join(dir, 'demo.tape'), readFileSync(join(dir, 'demo.tape'), 'utf8').replaceAll('from-the-matcher', 'changed'));
  const ci = await vitest([], { CI: 'true' });
  expect(ci.code).toBe(1);
  expect(ci.stdout + ci.stderr).toMatch(/demo\.tape:1: frame 4 \(after line 4: Type "echo changed"\) differs/);
  expect(readFileSync(join(dir, 'demo.ascii'), 'utf8')).toBe(written);
  expect(existsSync(join(dir, 'demo.ascii.new'))).toBe(false);
  const update = await vitest(['-u'], { CI: '' });
  expect(update.code, update.stdout + update.stderr).toBe(0);
  expect(readFileSync(join(dir, 'demo.ascii'), 'utf8')).toContain('> echo changed\nchanged\n>\n');
});
