import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT, run, type RunResult } from './helpers/cli.js';

/**
 * tapedeck as a package user meets it: `npm pack`, installed into a fresh
 * vitest monorepo (two projects, each its own root) on a PATH where every
 * compiler fails, then one vitest run from the monorepo root and one of the
 * app project from its parent on CI, each checked through vitest's JSON
 * report. The fixture's tests are in test/fixtures/in-your-project.
 */
// Outside the repository, so nothing resolves from its node_modules by accident.
const base = join(tmpdir(), `tapedeck-in-your-project-${process.pid}`);
const mono = join(base, 'mono');
const app = join(mono, 'app');
const lib = join(mono, 'lib');
const VITEST = join(mono, 'node_modules/vitest/vitest.mjs');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

interface Assertion {
  fullName: string;
  status: string;
  failureMessages: string[];
}
interface Report {
  testResults: { name: string; assertionResults: Assertion[] }[];
}

let install: RunResult;
let first: { res: RunResult; report: Report };
let second: { res: RunResult; report: Report };
let goldensAfterFirst: Record<string, string>;

function vitest(args: string[], env: NodeJS.ProcessEnv, reportName: string, cwd = mono) {
  const REPORT_JSON = join(base, reportName);
  return run(['node', VITEST, 'run', ...args], {
    cwd,
    env: { CI: '', TAPEDECK_UPDATE: '', FORCE_COLOR: '0', NO_COLOR: '1', REPORT_JSON, ...env },
    timeoutMs: 180_000,
  }).then((res) => ({ res, report: JSON.parse(readFileSync(REPORT_JSON, 'utf8')) as Report }));
}

function result(report: Report, file: string, name: string): Assertion {
  const found = report.testResults.filter((f) => f.name.endsWith(file)).flatMap((f) => f.assertionResults).find((a) => a.fullName === name);
  if (!found) throw new Error(`no result for ${file} > ${name} in ${JSON.stringify(report.testResults.map((f) => f.name))}`);
  return found;
}

/** Every file under a folder with a hash of its content. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

beforeAll(async () => {
  rmSync(base, { recursive: true, force: true });
  mkdirSync(join(base, 'nocc'), { recursive: true });
  // A machine without a compiler: every compiler and make on PATH fails loudly.
  for (const tool of ['g++', 'gcc', 'cc', 'c++', 'make', 'clang', 'clang++']) {
    writeFileSync(join(base, 'nocc', tool), '#!/bin/sh\necho "no compiler on this machine" >&2\nexit 127\n');
    chmodSync(join(base, 'nocc', tool), 0o755);
  }
  execFileSync('npm', ['pack', '--pack-destination', base, '--silent'], { cwd: ROOT, stdio: 'ignore' });
  cpSync(join(ROOT, 'test/fixtures/in-your-project'), mono, { recursive: true });
  writeFileSync(join(mono, 'package.json'), JSON.stringify({ name: 'fixture-monorepo', private: true, type: 'module' }));
  install = await run(['npm', 'install', join(base, 'tapedeck-0.1.0.tgz'), '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: mono,
    env: { PATH: `${join(base, 'nocc')}:${process.env.PATH}`, CC: 'false', CXX: 'false' },
    timeoutMs: 240_000,
  });
  if (install.code !== 0) return;
  // The project's own vitest (tapedeck's optional peer): this repository's copy, linked rather than installed again.
  symlinkSync(join(ROOT, 'node_modules/vitest'), join(mono, 'node_modules/vitest'));
  // Goldens committed before the first run: one no test uses, and stale images of the screenshot golden.
  const uiGoldens = join(app, 'goldens/test/ui.test.ts');
  mkdirSync(uiGoldens, { recursive: true });
  writeFileSync(join(uiGoldens, 'old-name.txt'), 'a test that was renamed\n');
  const shots = join(lib, 'goldens/test/lib.test.ts');
  mkdirSync(shots, { recursive: true });
  writeFileSync(join(shots, 'screenshot-golden.actual.png'), 'stale');
  writeFileSync(join(shots, 'screenshot-golden.diff.png'), 'stale');
  // Run 1: both projects from the monorepo root, locally: goldens are written.
  first = await vitest([], { PAUSE: '0' }, 'first.json');
  // Run 2: the app project from its parent folder, on CI (nothing may be written), with a program that pauses mid-draw.
  goldensAfterFirst = tree(join(app, 'goldens'));
  second = await vitest(['--root', 'app'], { CI: 'true', PAUSE: '0.3' }, 'second.json');
}, 600_000);
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('tapedeck in someone else\'s project', () => {
  test('installs from the packed tarball with no compiler: node-pty comes prebuilt', () => {
    expect(install.code, install.stdout + install.stderr).toBe(0);
    expect(existsSync(join(mono, 'node_modules/node-pty/build'))).toBe(false);
    expect(existsSync(join(mono, 'node_modules/node-pty/prebuilds/linux-x64/pty.node'))).toBe(true);
  });

  test('names that sanitising merged get one golden each, and pass twice in a row', () => {
    for (const run of [first, second]) {
      for (const name of ['menu 日本', 'menu 中文', 'menu: plus', 'menu plus']) expect(result(run.report, 'names.test.ts', name).status, name).toBe('passed');
    }
    const folder = join(app, 'goldens/test/names.test.ts');
    const files = readdirSync(folder).sort();
    expect(files).toHaveLength(4);
    expect(files).toContain('menu-日本.txt');
    expect(files).toContain('menu-中文.txt');
    expect(files).toContain('menu-plus.txt');
    expect(files.find((f) => /^menu-plus-[0-9a-f]{8}\.txt$/.test(f))).toBeDefined();
    expect(readFileSync(join(folder, 'menu-plus.txt'), 'utf8')).toMatch(/^menu plus +│$/m);
  });

  test('ui.test.ts and ui.spec.ts keep separate goldens; neither sees the other\'s as obsolete', () => {
    expect(readFileSync(join(app, 'goldens/test/ui.test.ts/ui.txt'), 'utf8')).toContain('from-test');
    expect(readFileSync(join(app, 'goldens/test/ui.spec.ts/ui.txt'), 'utf8')).toContain('from-spec');
    expect(result(first.report, 'ui.spec.ts', 'ui').status).toBe('passed');
  });

  test('goldens come from each project\'s root, never the current folder; the same files from the parent', () => {
    expect(existsSync(join(mono, 'goldens'))).toBe(false);
    expect(existsSync(join(lib, 'goldens/test/lib.test.ts/Same-Name.txt'))).toBe(true);
    // Run 2 ran on CI from mono/ with --root app: every golden was found (none may be written there).
    expect(result(second.report, 'ui.test.ts', 'ui').status).toBe('passed');
    expect(second.res.stdout + second.res.stderr).not.toContain('does not exist');
    expect(tree(join(app, 'goldens'))).toEqual(goldensAfterFirst);
  });

  test('toMatchScreen retries until a program that pauses 300 ms mid-draw matches', () => {
    expect(result(first.report, 'draw.test.ts', 'a program that pauses mid-draw matches its golden').status).toBe('passed');
    const folder = join(app, 'goldens/test/draw.test.ts');
    const golden = readdirSync(folder).find((f) => /^a-program-that-pauses-mid-draw-matches-its-golden-[0-9a-f]{8}\.txt$/.test(f));
    expect(readFileSync(join(folder, golden!), 'utf8')).toMatch(/^top +│\nbottom +│$/m);
    const paused = result(second.report, 'draw.test.ts', 'a program that pauses mid-draw matches its golden');
    expect(paused.status, paused.failureMessages.join('\n')).toBe('passed');
  });

  test('under vitest\'s default testTimeout a failing toContainText shows the screen, not "Test timed out"', () => {
    const failed = result(first.report, 'draw.test.ts', 'a failing toContainText shows the screen');
    expect(failed.status).toBe('failed');
    const message = failed.failureMessages.join('\n');
    expect(message).toContain('expected screen to contain "absent"');
    expect(message).toMatch(/--- screen ---\n0 │hello tapedeck/);
    expect(message).not.toContain('timed out in');
  });

  test('a line assertion numbers its frame with the row it read', () => {
    const message = result(first.report, 'draw.test.ts', 'a line assertion labels its frame with the row it read').failureMessages.join('\n');
    expect(message).toContain('--- line 3 ---\n3 │> Increment');
  });

  test('an un-awaited failing matcher fails its own test, saying to await it', () => {
    const forgot = result(first.report, 'draw.test.ts', 'a forgotten await fails its own test');
    expect(forgot.status).toBe('failed');
    expect(forgot.failureMessages.join('\n')).toContain('expect(...).toContainText(...) was not awaited');
    expect(first.res.stdout + first.res.stderr).not.toMatch(/Unhandled Rejection/i);
  });

  test('two concurrent tests each keep their own terminal', () => {
    for (const name of ['two terminals at once A ends first', 'two terminals at once B outlives A']) {
      const r = result(first.report, 'concurrent.test.ts', name);
      expect(r.status, r.failureMessages.join('\n')).toBe('passed');
    }
  });

  test('two names that would share a file fail the run, naming both tests', () => {
    expect(result(first.report, 'lib.test.ts', 'Same Name').status).toBe('passed');
    const clash = result(first.report, 'lib.test.ts', 'same name');
    expect(clash.status).toBe('failed');
    expect(clash.failureMessages.join('\n')).toContain('tests "Same Name" and "same name" in lib/test/lib.test.ts would share the golden');
  });

  test('toReplayCleanly leaves a .new like the CLI, and a missing tape names its path', () => {
    expect(result(first.report, 'lib.test.ts', 'a drifting tape leaves a candidate').status).toBe('failed');
    expect(readFileSync(join(lib, 'tapes/echo.ndjson.new'), 'utf8')).toContain('\\"x\\":1');
    const missing = result(first.report, 'lib.test.ts', 'a missing tape names its path').failureMessages.join('\n');
    expect(missing.split('\n')[0]).toMatch(/tape .*lib\/tapes\/missing\.ndjson does not exist/);
  });

  test('a passing screenshot golden removes the stale .actual.png and .diff.png', () => {
    expect(result(first.report, 'lib.test.ts', 'screenshot golden').status).toBe('passed');
    expect(readdirSync(join(lib, 'goldens/test/lib.test.ts')).filter((f) => f.startsWith('screenshot')).sort()).toEqual(['screenshot-golden.png']);
  });

  test('each run ends with one line saying what happened to goldens', () => {
    // Written: 4 names, 2 ui, the mid-draw screen, the screenshot, "Same Name". Candidate: the drifting tape.
    expect(first.res.stdout).toContain('tapedeck goldens: 9 written, 0 updated, 1 obsolete, 1 candidate left (.new)');
    expect(second.res.stdout).toContain('tapedeck goldens: 0 written, 0 updated, 1 obsolete, 0 candidates left (.new)');
    // With the reporter registered the workers leave the line to it: one line per run, not one per file.
    for (const run of [first, second]) expect(run.res.stdout.match(/tapedeck goldens:/g)).toHaveLength(1);
  });

  test('matcher typings accept only what the matchers handle; key names are a typed union', async () => {
    writeFileSync(
      join(mono, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, typeRoots: [join(ROOT, 'node_modules/@types')], types: ['node'] }, files: ['types-check.ts'] }),
    );
    const res = await run(['node', TSC, '-p', 'tsconfig.json'], { cwd: mono, timeoutMs: 120_000 });
    expect(res.code, res.stdout + res.stderr).toBe(0);
  });

  test('source maps carry their sources, so stack frames resolve inside node_modules', () => {
    const map = JSON.parse(readFileSync(join(mono, 'node_modules/tapedeck/dist/session/waits.js.map'), 'utf8'));
    expect(map.sourcesContent?.length).toBe(map.sources.length);
    expect(map.sourcesContent[0]).toContain('export');
  });

  test('without the native module: protocol use, explain and doctor work; doctor fails the pty check with its fix', async () => {
    const pty = join(mono, 'node_modules/node-pty');
    renameSync(pty, `${pty}.off`);
    try {
      const cli = join(mono, 'node_modules/tapedeck/dist/cli/main.js');
      const imported = await run(['node', '-e', "import('tapedeck').then((m) => console.log(typeof m.spawnTerminal, typeof m.replayProtocolTape))"], { cwd: mono });
      expect(imported.stdout.trim(), imported.stderr).toBe('function function');
      const explain = await run(['node', cli, 'explain', 'TD1001'], { cwd: mono });
      expect(explain.code, explain.stderr).toBe(0);
      const doctor = await run(['node', cli, 'doctor', '--json'], { cwd: mono, timeoutMs: 120_000 });
      expect(doctor.code, doctor.stderr).toBe(8);
      expect(doctor.stdout).toContain('node-pty');
      expect(doctor.stdout).not.toContain('internal error');
    } finally {
      renameSync(`${pty}.off`, pty);
    }
  });
});
