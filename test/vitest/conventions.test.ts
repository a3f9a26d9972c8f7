import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT, tapedeck } from '../helpers/cli.js';
import { vitestProject, type VitestProject } from '../helpers/vitest-project.js';

/**
 * Names and conventions (issue 27.8, and the replay half of 27.10): `replay -u`,
 * `--reporter junit|github|json` with vitest's meanings (stdout, or --out FILE),
 * the GitHub job summary, and tapedeck.config.ts with a typed defineConfig and
 * per-matcher defaults, read by the CLI and by the matchers.
 */
const SERVER = join(ROOT, 'test/fixtures/in-your-project/lib/echo-server.mjs');
const DRIFTED = readFileSync(join(ROOT, 'test/fixtures/in-your-project/lib/tapes/echo.ndjson'), 'utf8');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tapedeck-conventions-'));
  writeFileSync(join(dir, 'package.json'), '{"name":"c","private":true}');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function freshTape(name: string): string {
  writeFileSync(join(dir, name), DRIFTED);
  return name;
}

describe('replay', () => {
  test('-u rewrites drifted pairs, as --update does; the next replay is clean', async () => {
    const tape = freshTape('u.ndjson');
    expect((await tapedeck(['replay', tape, '--', 'node', SERVER], { cwd: dir, env: { CI: '' } })).code).toBe(1);
    const r = await tapedeck(['replay', '-u', tape, '--', 'node', SERVER], { cwd: dir, env: { CI: '' } });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, tape), 'utf8')).toContain('\\"x\\":1}}');
    expect((await tapedeck(['replay', tape, '--', 'node', SERVER], { cwd: dir })).code).toBe(0);
  });

  test('--reporter junit, github and json write to stdout, or to --out FILE', async () => {
    const tape = freshTape('r.ndjson');
    const junit = await tapedeck(['replay', '--reporter', 'junit', tape, '--', 'node', SERVER], { cwd: dir, env: { GITHUB_ACTIONS: '' } });
    expect(junit.code).toBe(1);
    expect(junit.stdout).toMatch(/^<\?xml[\s\S]*<failure message="1 drift\(s\)/);
    const github = await tapedeck(['replay', '--reporter', 'github', tape, '--', 'node', SERVER], { cwd: dir, env: { GITHUB_ACTIONS: '' } });
    expect(github.stdout).toMatch(/^::error file=r\.ndjson,line=1,title=TD1001/);
    const json = await tapedeck(['replay', '--reporter', 'json', '--out', 'out.json', tape, '--', 'node', SERVER], { cwd: dir, env: { GITHUB_ACTIONS: '' } });
    expect(json.stdout).toBe('');
    const report = JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'));
    expect(report.tapes[0].drifts[0].code).toBe('TD1001');
    const bad = await tapedeck(['replay', '--reporter', 'tap', tape, '--', 'node', SERVER], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--reporter takes junit, github or json, got "tap"');
  });

  test('under GitHub Actions the job summary gets a drift table naming the tape, the change and the report', async () => {
    const tape = freshTape('s.ndjson');
    const summary = join(dir, 'step-summary.md');
    writeFileSync(summary, '');
    const r = await tapedeck(['replay', '--report', 'drift.html', tape, '--', 'node', SERVER], { cwd: dir, env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary } });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/::error file=s\.ndjson/);
    const md = readFileSync(summary, 'utf8');
    expect(md).toContain('### tapedeck replay');
    expect(md).toMatch(/\| `s\.ndjson:1` \| TD1001 [^|]+ \| `drift\.html` \|/);
  });
});

describe('tapedeck.config.ts', () => {
  let p: VitestProject;
  beforeAll(() => {
    p = vitestProject(
      {
        'tapedeck.config.ts': `import { defineConfig } from 'tapedeck/config';
const clock: RegExp = /\\d\\d:\\d\\d:\\d\\d\\.\\d+/;
export default defineConfig({
  goldens: 'shots',
  matchers: { toMatchScreen: { mask: [clock] }, toContainText: { timeoutMs: 400 } },
});
`,
        'test/clock.test.ts': `import { expect, test } from 'vitest';
import { spawnTerminal } from 'tapedeck';
test('clock', async () => {
  const term = spawnTerminal('node', ['-e', 'console.log("now " + new Date().toISOString().slice(11, 23)); setInterval(() => {}, 1000)'], { rows: 2, cols: 30 });
  await expect(term).toContainText('now');
  await expect(term).toMatchScreen();
});
test('short wait', async () => {
  const term = spawnTerminal('sh', ['-c', 'printf "here\\\\n"; exec cat'], { rows: 2, cols: 30 });
  await expect(term).toContainText('never there');
});
`,
      },
      'config-ts',
    );
    symlinkSync(join(ROOT, 'node_modules/typescript'), join(p.dir, 'node_modules/typescript'));
    copyFileSync(join(ROOT, 'test/fixtures/in-your-project/lib/tapes/echo.ndjson'), join(p.dir, 'echo.ndjson'));
  });
  afterAll(() => p.remove());

  test('the matchers take its per-matcher defaults: a masked clock matches run after run, a wait ends at its timeout', { timeout: 180_000 }, async () => {
    for (let run = 0; run < 2; run++) {
      const r = await p.vitest([]);
      const byName = Object.fromEntries(r.assertions.map((a) => [a.fullName, a]));
      expect(byName.clock?.status, `${r.stdout}${r.stderr}`).toBe('passed');
      expect(byName['short wait'].failureMessages.join('')).toMatch(/waited [34]\d\d ms/);
    }
    expect(p.read('shots/test/clock.test.ts/clock.txt')).toMatch(/now ░+/);
  });

  test('the CLI reads it too (review looks in its goldens folder), and a bad key is exit 2 naming the file', async () => {
    p.write('shots/a.txt.new', 'candidate\n');
    const review = await tapedeck(['review', '--json'], { cwd: p.dir });
    expect(JSON.parse(review.stdout).result.pending.map((x: { golden: string }) => x.golden)).toEqual(['shots/a.txt']);
    p.write('tapedeck.config.ts', "import { defineConfig } from 'tapedeck/config';\nexport default { matchers: { toMatchScren: {} } };\n");
    const bad = await tapedeck(['replay', 'echo.ndjson', '--', 'node', SERVER], { cwd: p.dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('tapedeck.config.ts');
    expect(bad.stderr).toContain('unknown matcher "toMatchScren"');
  });
});
