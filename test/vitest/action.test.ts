import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ROOT, run, type RunResult } from '../helpers/cli.js';
import { vitestProject, type VitestProject } from '../helpers/vitest-project.js';

/**
 * The composite GitHub Action at the repository root (issue 27.10): its bash
 * steps run as the runner would, in a fixture project with a drifted tape and
 * a golden that differs, under a fake GITHUB_* environment; then the job
 * summary, the annotations and the paths the upload step names are checked.
 */
interface Step {
  name?: string;
  uses?: string;
  if?: string;
  env: Record<string, string>;
  run?: string;
  with: Record<string, string>;
}

/** The steps of action.yml: a reader for the subset it is written in (block scalars, flat maps). */
function actionSteps(yaml: string): { inputs: Record<string, string>; steps: Step[] } {
  const lines = yaml.split('\n');
  const inputs: Record<string, string> = {};
  const steps: Step[] = [];
  let section = '';
  let input = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\S/.test(line)) section = line.replace(/:.*/, '');
    if (section === 'inputs') {
      const m = /^ {2}(\S+):$/.exec(line);
      if (m) input = m[1];
      const d = /^ {4}default: (.*)$/.exec(line);
      if (d) inputs[input] = d[1].replace(/^'(.*)'$/, '$1');
    }
    if (section !== 'runs') continue;
    if (/^ {4}- /.test(line)) steps.push({ env: {}, with: {} });
    const step = steps[steps.length - 1];
    const kv = /^ {4}(?:- | {2})(\w[\w-]*): ?(.*)$/.exec(line);
    if (!step || !kv) continue;
    const [, key, value] = kv;
    const block = (): string => {
      const out: string[] = [];
      while (i + 1 < lines.length && (/^ {8}/.test(lines[i + 1]) || lines[i + 1] === '')) out.push(lines[++i].slice(8));
      return out.join('\n');
    };
    const map = (into: Record<string, string>) => {
      while (i + 1 < lines.length && /^ {8}\S/.test(lines[i + 1])) {
        const m = /^ {8}([\w-]+): ?(.*)$/.exec(lines[++i])!;
        into[m[1]] = m[2] === '|' ? block().replace(/^ {2}/gm, '') : m[2];
      }
    };
    if (key === 'run') step.run = block();
    else if (key === 'env') map(step.env);
    else if (key === 'with') map(step.with);
    else if (key === 'name' || key === 'uses' || key === 'if') step[key] = value;
  }
  return { inputs, steps };
}

const expand = (text: string, inputs: Record<string, string>) => text.replace(/\$\{\{ inputs\.([\w-]+) \}\}/g, (_m, k: string) => inputs[k] ?? '');

let p: VitestProject;
let summary: string;
let results: Record<string, RunResult>;
let upload: Step;
let inputs: Record<string, string>;

beforeAll(async () => {
  p = vitestProject(
    {
      'tapes/echo.ndjson': readFileSync(join(ROOT, 'test/fixtures/in-your-project/lib/tapes/echo.ndjson'), 'utf8'),
      'test/ui.test.ts': `import { expect, test } from 'vitest';
import { spawnTerminal } from 'tapedeck';
test('menu', async () => {
  const term = spawnTerminal('sh', ['-c', 'printf "Open file\\\\n"; exec cat'], { rows: 2, cols: 12 });
  await expect(term).toContainText('Open file');
  await expect(term).toMatchScreen({ timeoutMs: 300 });
});
`,
      'goldens/test/ui.test.ts/menu.txt': 'tapedeck-screen v1 cols=12 rows=2 cursor=1,0 cursor-visible=yes alt-screen=no\nOpen        │\n            │\n',
    },
    'action',
  );
  // What `npm ci` puts on PATH for `npx`.
  mkdirSync(join(p.dir, 'node_modules/.bin'));
  for (const [bin, target] of [['tapedeck', 'dist/bundle/tapedeck.js'], ['vitest', 'node_modules/vitest/vitest.mjs']]) {
    writeFileSync(join(p.dir, 'node_modules/.bin', bin), `#!/bin/sh\nexec node ${join(ROOT, target)} "$@"\n`, { mode: 0o755 });
  }
  summary = join(p.dir, 'summary.md');
  writeFileSync(summary, '');
  const parsed = actionSteps(readFileSync(join(ROOT, 'action.yml'), 'utf8'));
  inputs = { ...parsed.inputs, tapes: 'tapes/*.ndjson', command: `node ${join(ROOT, 'test/fixtures/in-your-project/lib/echo-server.mjs')}`, install: '' };
  results = {};
  for (const step of parsed.steps) {
    if (!step.run) continue;
    if (step.name === 'install') continue; // inputs.install is '' here
    const env = Object.fromEntries(Object.entries(step.env).map(([k, v]) => [k, expand(v, inputs)]));
    results[step.name!] = await run(['bash', '-e', '-c', step.run], {
      cwd: p.dir,
      env: { ...env, CI: 'true', GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: p.dir, FORCE_COLOR: '0', NO_COLOR: '1', npm_config_offline: 'true' },
      timeoutMs: 120_000,
    });
  }
  upload = parsed.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
}, 300_000);
afterAll(() => p?.remove());

test('the steps fail on drift, annotate it and write a drift table for replay and for vitest', () => {
  expect(results['replay tapes'].code).toBe(1);
  expect(results['replay tapes'].stdout).toMatch(/::error file=tapes\/echo\.ndjson,line=1/);
  expect(results['vitest goldens'].code).toBe(1);
  const md = readFileSync(summary, 'utf8');
  expect(md).toContain('### tapedeck replay');
  expect(md).toMatch(/\| `tapes\/echo\.ndjson:1` \| TD1001 [^|]+\| `tapedeck-reports\/replay\.html` \|/);
  expect(md).toContain('### tapedeck goldens (vitest)');
  // On CI (CI=true) no candidate is written; the table still names the golden that differs.
  expect(md).toMatch(/\| `goldens\/test\/ui\.test\.ts\/menu\.txt` \| differs from its golden \(no candidate written: on CI, or update mode none\) \|/);
});

test('the upload step names the HTML reports and JUnit files the steps wrote', () => {
  expect(upload.with.path.trim().split('\n').map((l) => l.trim())).toEqual(['${{ inputs.out-dir }}/*.html', '${{ inputs.out-dir }}/*.xml']);
  const out = join(p.dir, inputs['out-dir']);
  for (const f of ['replay.html', 'replay-junit.xml', 'vitest-junit.xml']) expect(existsSync(join(out, f)), f).toBe(true);
  expect(readFileSync(join(out, 'vitest-junit.xml'), 'utf8')).toContain('<testcase');
  expect(execFileSync('ls', [out], { encoding: 'utf8' })).not.toContain('vitest.html'); // nothing pending on CI
});
