import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { tapedeck } from '../helpers/cli.js';
import { vitestProject, type VitestProject } from '../helpers/vitest-project.js';

/**
 * `tapedeck review` finds the pending goldens of every vitest project root a
 * run used, from any folder (issue 27.4): a monorepo with two projects (app,
 * lib), each its own root and goldens/, run from the monorepo root; review
 * then from the root, from a subfolder of one package and from the other
 * package. From a folder with nothing pending it says where it looked.
 */
function golden(line: string): string {
  return `tapedeck-screen v1 cols=20 rows=2 cursor=1,0 cursor-visible=yes alt-screen=no\n${line.padEnd(20)}│\n${''.padEnd(20)}│\n`;
}
function testOf(pkg: string): string {
  return `import { expect, test } from 'vitest';
import { spawnTerminal } from 'tapedeck';
test('screen', async () => {
  const term = spawnTerminal('sh', ['-c', 'printf "${pkg} now\\\\n"; exec cat'], { rows: 2, cols: 20 });
  await expect(term).toContainText('${pkg} now');
  await expect(term).toMatchScreen({ timeoutMs: 300 });
});
`;
}
const project = (name: string) => `import { defineConfig } from 'vitest/config';
export default defineConfig({ test: { name: '${name}', setupFiles: ['tapedeck/vitest'], include: ['test/**/*.test.ts'] } });
`;

let p: VitestProject;
let empty: string;
beforeAll(async () => {
  p = vitestProject(
    {
      'vitest.config.ts': `import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { projects: ['app', 'lib'] } });\n`,
      'app/package.json': '{"name":"app","private":true,"type":"module"}',
      'app/vitest.config.ts': project('app'),
      'app/test/screen.test.ts': testOf('app'),
      'app/goldens/test/screen.test.ts/screen.txt': golden('app before'),
      'app/src/deep/.keep': '',
      'lib/package.json': '{"name":"lib","private":true,"type":"module"}',
      'lib/vitest.config.ts': project('lib'),
      'lib/test/screen.test.ts': testOf('lib'),
      'lib/goldens/test/screen.test.ts/screen.txt': golden('lib before'),
    },
    'review-roots',
  );
  const r = await p.vitest([]);
  expect(r.assertions.map((a) => a.status)).toEqual(['failed', 'failed']);
  expect(p.files().filter((f) => f.endsWith('.new'))).toEqual(['app/goldens/test/screen.test.ts/screen.txt.new', 'lib/goldens/test/screen.test.ts/screen.txt.new']);
  empty = mkdtempSync(join(tmpdir(), 'tapedeck-review-empty-'));
  mkdirSync(join(empty, 'goldens'));
}, 180_000);
afterAll(() => {
  p?.remove();
  if (empty) rmSync(empty, { recursive: true, force: true });
});

async function pendingFrom(cwd: string): Promise<string[]> {
  const r = await tapedeck(['review', '--json'], { cwd });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { result: { pending: { golden: string }[] } }).result.pending.map((x) => x.golden);
}

test('from the monorepo root, both projects\' pending goldens', async () => {
  expect(await pendingFrom(p.dir)).toEqual(['app/goldens/test/screen.test.ts/screen.txt', 'lib/goldens/test/screen.test.ts/screen.txt']);
});

test('from a subfolder of one package, and from the other package', async () => {
  expect(await pendingFrom(join(p.dir, 'app/src/deep'))).toContain('../../goldens/test/screen.test.ts/screen.txt');
  expect(await pendingFrom(join(p.dir, 'lib'))).toContain('goldens/test/screen.test.ts/screen.txt');
});

test('the listing shows each diff, and accepting from a subfolder takes the candidate', async () => {
  const list = await tapedeck(['review'], { cwd: join(p.dir, 'app/src/deep') });
  expect(list.stdout).toContain('+app now');
  const accept = await tapedeck(['review', '--accept', 'all'], { cwd: join(p.dir, 'app') });
  expect(accept.code, accept.stderr).toBe(0);
  expect(p.read('app/goldens/test/screen.test.ts/screen.txt')).toContain('app now');
  // "all" from app/ stays in app: lib's candidate waits for lib's review.
  expect(p.files('lib').filter((f) => f.endsWith('.new'))).toEqual(['goldens/test/screen.test.ts/screen.txt.new']);
});

test('with nothing pending, it says which folders it looked in', async () => {
  const r = await tapedeck(['review'], { cwd: empty });
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/nothing pending; looked in goldens/);
});
