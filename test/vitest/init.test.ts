import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CLI, ROOT, run, type RunResult } from '../helpers/cli.js';
import { installPackedWithoutCompiler } from '../helpers/packed.js';

/**
 * `tapedeck init` in a fresh project that has the packed tapedeck installed (npm pack,
 * npm install of the tarball from npm's cache, once per suite run and shared with
 * in-your-project.test.ts: test/helpers/packed.ts): the scaffold's own test passes with
 * `vitest run` (writing its golden), then again on CI (comparing, writing nothing).
 */
const base = join(tmpdir(), `tapedeck-init-${process.pid}`);
const project = join(base, 'project');
const VITEST = join(project, 'node_modules/vitest/vitest.mjs');
const GOLDEN = join(project, 'goldens/test/tapedeck.test.ts/bash-prints-a-greeting.txt');

let install: RunResult;
let init: RunResult;

const vitest = (env: NodeJS.ProcessEnv) =>
  run(['node', VITEST, 'run'], { cwd: project, env: { CI: '', GITHUB_ACTIONS: '', GITHUB_STEP_SUMMARY: '', TAPEDECK_UPDATE: '', FORCE_COLOR: '0', NO_COLOR: '1', ...env }, timeoutMs: 120_000 });

beforeAll(async () => {
  rmSync(base, { recursive: true, force: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'fresh', private: true, type: 'module' }));
  install = await installPackedWithoutCompiler(project);
  if (install.code !== 0) return;
  // The project's own vitest: this repository's copy, linked rather than installed again.
  symlinkSync(join(ROOT, 'node_modules/vitest'), join(project, 'node_modules/vitest'));
  init = await run([join(project, 'node_modules/.bin/tapedeck'), 'init'], { cwd: project });
}, 200_000);
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('tapedeck init', () => {
  test('scaffolds config, goldens/, an example test, vitest.config.ts and a workflow using the action', () => {
    expect(install.code, install.stdout + install.stderr).toBe(0);
    expect(init.code, init.stderr).toBe(0);
    for (const f of ['tapedeck.config.json', 'goldens/', '.gitattributes', 'test/tapedeck.test.ts', 'vitest.config.ts', '.github/workflows/tapedeck.yml']) expect(init.stdout).toContain(`created ${f}\n`);
    expect(JSON.parse(readFileSync(join(project, 'tapedeck.config.json'), 'utf8')).goldens).toBe('goldens');
    expect(readFileSync(join(project, 'vitest.config.ts'), 'utf8')).toMatch(/setupFiles: \['tapedeck\/vitest'\][\s\S]*'tapedeck\/vitest\/reporter'/);
    const workflow = readFileSync(join(project, '.github/workflows/tapedeck.yml'), 'utf8');
    expect(workflow).toMatch(/^ {6}- uses: tapedeck\/tapedeck@main$/m);
    // The action's inputs the workflow sets are ones action.yml declares.
    const inputs = readFileSync(join(ROOT, 'action.yml'), 'utf8');
    for (const [, name] of workflow.matchAll(/^ {10}#? ?(\w[\w-]*):/gm)) expect(inputs).toContain(`\n  ${name}:\n`);
  });

  test('its test passes on a fresh project (writing the golden), then again with CI=true', async () => {
    const first = await vitest({});
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toMatch(/1 passed/);
    expect(first.stderr).toContain('tapedeck goldens: 1 written');
    expect(readFileSync(GOLDEN, 'utf8')).toMatch(/^hello from tapedeck +│$/m);
    const before = readFileSync(GOLDEN, 'utf8');
    const second = await vitest({ CI: 'true' });
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toMatch(/1 passed/);
    expect(readFileSync(GOLDEN, 'utf8')).toBe(before);
    expect(readdirSync(join(GOLDEN, '..'))).toEqual(['bash-prints-a-greeting.txt']);
    // On CI a missing golden fails: the CI run compared rather than wrote.
    rmSync(GOLDEN);
    const missing = await vitest({ CI: 'true' });
    expect(missing.code).toBe(1);
    expect(existsSync(GOLDEN)).toBe(false);
  });
});

describe('tapedeck init never overwrites', () => {
  test('existing files are kept and listed as skipped; an existing vitest config gets what to add', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapedeck-init-skip-'));
    try {
      writeFileSync(join(dir, 'vite.config.ts'), 'export default {};\n');
      mkdirSync(join(dir, 'test'));
      writeFileSync(join(dir, 'test/tapedeck.test.ts'), 'mine\n');
      writeFileSync(join(dir, 'tapedeck.config.ts'), 'export default {};\n');
      const res = await run(['node', CLI, 'init'], { cwd: dir });
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain('skipped test/tapedeck.test.ts (exists)');
      expect(res.stdout).toContain('skipped tapedeck.config.json (tapedeck.config.ts exists; one config file per project)');
      expect(res.stdout).toContain("skipped vitest.config.ts (vite.config.ts exists: add setupFiles: ['tapedeck/vitest']");
      expect(res.stdout).toContain('created .github/workflows/tapedeck.yml');
      expect(readFileSync(join(dir, 'test/tapedeck.test.ts'), 'utf8')).toBe('mine\n');
      expect(readFileSync(join(dir, 'vite.config.ts'), 'utf8')).toBe('export default {};\n');
      expect(existsSync(join(dir, 'vitest.config.ts'))).toBe(false);
      expect(existsSync(join(dir, 'tapedeck.config.json'))).toBe(false);
      const again = await run(['node', CLI, 'init', '--config', 'yaml'], { cwd: dir });
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('--config must be json or ts');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
