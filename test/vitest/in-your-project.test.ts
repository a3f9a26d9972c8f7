import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT, run, type RunResult } from '../helpers/cli.js';
import { installPackedWithoutCompiler } from '../helpers/packed.js';

/**
 * tapedeck as a package user meets it: `npm pack`, installed on a PATH where every
 * compiler fails (once per suite run, shared with init.test.ts: test/helpers/packed.ts),
 * in a fresh vitest monorepo (two projects, each its own root; one on worker threads, one
 * on forks), then three vitest runs, each
 * checked through vitest's JSON report: from the monorepo root locally (goldens
 * written), of the app project from its parent on CI (nothing written), and
 * from the root with -u. The fixture's tests are in test/fixtures/in-your-project.
 */
// Outside the repository, so nothing resolves from its node_modules by accident.
const base = join(tmpdir(), `tapedeck-in-your-project-${process.pid}`);
const mono = join(base, 'mono');
const app = join(mono, 'app');
const lib = join(mono, 'lib');
// Run 3 (-u) works on a copy of the project as run 1 left it, so it runs beside run 2.
const monoU = join(base, 'mono-u');
const appU = join(monoU, 'app');
const libU = join(monoU, 'lib');
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
let third: { res: RunResult; report: Report };
let typecheck: Promise<{ res: RunResult; examples: number }>;
let rendered: Promise<RunResult>;
let leftBehind: string[];
let goldensAfterSecond: Record<string, string>;
let echoCandidate: string | undefined;
let goldensAfterFirst: Record<string, string>;

const AGENT = { AGENT_SERVER: join(ROOT, 'examples/agent-server.mjs'), AGENT_TAPE: join(ROOT, 'goldens/agent-server.ndjson'), AGENT_SERVER_ROOT: join(ROOT, 'examples/project') };

function vitest(args: string[], env: NodeJS.ProcessEnv, reportName: string, cwd = mono) {
  const REPORT_JSON = join(base, reportName);
  // CI is cleared unless a run sets it: the outer run may itself be on CI.
  // Files in parallel as on a developer's machine (vitest's default is one worker on 2 cores): they mostly wait on terminals.
  return run(['node', VITEST, 'run', '--maxWorkers=2', ...args], {
    cwd,
    env: { CI: '', TAPEDECK_UPDATE: '', FORCE_COLOR: '0', NO_COLOR: '1', REPORT_JSON, ...AGENT, ...env },
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

/** A committed screen golden (40x6) with these lines and the cursor on row `cursorRow`. */
function screenGolden(lines: string[], cursorRow: number): string {
  const rows = Array.from({ length: 6 }, (_, i) => `${(lines[i] ?? '').padEnd(40)}│`);
  return `tapedeck-screen v1 cols=40 rows=6 cursor=${cursorRow},0 cursor-visible=yes alt-screen=no\n${rows.join('\n')}\n`;
}

const RENDER_SCRIPT = `
import { playCast } from 'tapedeck';
import { renderScreenPng, renderScreenRgba, renderSnapshot, readPngStamp, RASTER_RENDERER } from 'tapedeck/render';
const played = await playCast(process.argv[1]);
const snap = played.screen.snapshot({ includeCells: true });
const png = renderScreenPng(snap);
const rgba = renderScreenRgba(snap);
const viaSnapshot = await renderSnapshot(snap);
let ink = 0; // the first cell's red pixels (the "h" is red)
for (let y = 0; y < rgba.cell.height; y++) for (let x = 0; x < rgba.cell.width; x++) {
  const i = 4 * ((rgba.padding.y + y) * rgba.width + rgba.padding.x + x);
  if (rgba.data[i] > 150 && rgba.data[i + 1] < 100) ink++;
}
console.log(JSON.stringify({ stamp: readPngStamp(png), renderer: RASTER_RENDERER, size: [rgba.width, rgba.height], same: Buffer.compare(png, viaSnapshot.png) === 0, red: ink }));
`;

/** tsc over the fixture's types-check.ts and every ```ts block of the README and the docs, each its own module, against the installed package's types. */
async function typecheckReadme(): Promise<{ res: RunResult; examples: number }> {
  const dir = join(base, 'types');
  mkdirSync(dir, { recursive: true });
  symlinkSync(join(mono, 'node_modules'), join(dir, 'node_modules'));
  cpSync(join(mono, 'types-check.ts'), join(dir, 'types-check.ts'));
  const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const blocks = pages.flatMap((page) => [...readFileSync(join(ROOT, page), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)]);
  const examples = blocks.map((m, i) => {
    writeFileSync(join(dir, `readme-${i + 1}.ts`), `${m[1]}\nexport {};\n`);
    return `readme-${i + 1}.ts`;
  });
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, typeRoots: [join(ROOT, 'node_modules/@types')], types: ['node'] }, files: ['types-check.ts', ...examples] }),
  );
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  return { res: await run(['node', TSC, '-p', 'tsconfig.json'], { cwd: dir, timeoutMs: 180_000 }), examples: examples.length };
}

beforeAll(async () => {
  rmSync(base, { recursive: true, force: true });
  mkdirSync(base, { recursive: true });
  cpSync(join(ROOT, 'test/fixtures/in-your-project'), mono, { recursive: true });
  writeFileSync(join(mono, 'package.json'), JSON.stringify({ name: 'fixture-monorepo', private: true, type: 'module' }));
  install = await installPackedWithoutCompiler(mono);
  if (install.code !== 0) return;
  // The project's own vitest (tapedeck's optional peer): this repository's copy, linked rather than installed again.
  symlinkSync(join(ROOT, 'node_modules/vitest'), join(mono, 'node_modules/vitest'));
  // The type check needs only the installed package: it runs in its own folder while vitest runs.
  typecheck = typecheckReadme();
  typecheck.catch(() => {}); // awaited (and reported) by its test
  // The raster renderer as a user imports it: the `tapedeck/render` entry, a cast played by `tapedeck`.
  writeFileSync(join(base, 'hi.cast'), `${JSON.stringify({ version: 2, width: 20, height: 3 })}\n${JSON.stringify([0.1, 'o', '\u001b[31mhi\u001b[0m 漢字'])}\n`);
  rendered = run(['node', '--input-type=module', '-e', RENDER_SCRIPT, join(base, 'hi.cast')], { cwd: mono, timeoutMs: 120_000 });
  rendered.catch(() => {});
  // Goldens committed before the first run: one no test uses, and stale images of the screenshot golden.
  const uiGoldens = join(app, 'goldens/test/ui.test.ts');
  mkdirSync(uiGoldens, { recursive: true });
  writeFileSync(join(uiGoldens, 'old-name.txt'), 'a test that was renamed\n');
  const shots = join(lib, 'goldens/test/lib.test.ts');
  mkdirSync(shots, { recursive: true });
  writeFileSync(join(shots, 'screenshot-golden.actual.png'), 'stale');
  writeFileSync(join(shots, 'screenshot-golden.diff.png'), 'stale');
  const banner = join(app, 'goldens/test/banner.test.ts');
  mkdirSync(banner, { recursive: true });
  writeFileSync(join(banner, 'a-changed-screen.txt'), screenGolden(['hello from zsh'], 1));
  mkdirSync(join(app, 'goldens/test/cast.test.ts'), { recursive: true });
  cpSync(join(ROOT, 'goldens/terminal/bash-echo.cast'), join(app, 'goldens/test/cast.test.ts/bash-echo.cast'));
  // Run 1: both projects from the monorepo root, locally: goldens are written.
  first = await vitest([], { PAUSE: '0' }, 'first.json');
  leftBehind = execFileSync('ps', ['-eo', 'args']).toString().split('\n').filter((l) => /^sleep 4242$/.test(l.trim()));
  echoCandidate = existsSync(join(lib, 'tapes/echo.ndjson.new')) ? readFileSync(join(lib, 'tapes/echo.ndjson.new'), 'utf8') : undefined;
  goldensAfterFirst = tree(join(app, 'goldens'));
  // Runs 2 and 3 both start from what run 1 left, so they run side by side: run 3 in a copy.
  cpSync(mono, monoU, { recursive: true, filter: (src) => src !== join(mono, 'node_modules') });
  symlinkSync(join(mono, 'node_modules'), join(monoU, 'node_modules'));
  [second, third] = await Promise.all([
    // Run 2: the app project from its parent folder, on CI (nothing may be written), with a program that pauses mid-draw.
    vitest(['--root', 'app'], { CI: 'true', PAUSE: '0.3' }, 'second.json'),
    // Run 3: everything again under -u.
    vitest(['-u'], { PAUSE: '0' }, 'third.json', monoU),
  ]);
  goldensAfterSecond = tree(join(app, 'goldens'));
}, 900_000);
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('tapedeck in someone else\'s project', () => {
  test('installs from the packed tarball with no compiler: node-pty comes prebuilt', () => {
    expect(install.code, install.stdout + install.stderr).toBe(0);
    expect(existsSync(join(mono, 'node_modules/node-pty/build'))).toBe(false);
    expect(existsSync(join(mono, 'node_modules/node-pty/prebuilds/linux-x64/pty.node'))).toBe(true);
  });

  test('the raster renderer is a package entry: tapedeck/render draws a cast\'s screen (renderScreenPng and renderSnapshot give the same PNG)', async () => {
    const res = await rendered;
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out.renderer).toBe('tapedeck-raster');
    expect(out.stamp).toMatchObject({ renderer: 'tapedeck-raster', rows: 3, cols: 20, cell: { width: 9, height: 18 }, padding: { x: 8, y: 8 } });
    expect(out.size).toEqual([20 * 9 + 16, 3 * 18 + 16]);
    expect(out.same).toBe(true);
    expect(out.red).toBeGreaterThan(5);
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
    for (const [file, name] of [['ui.test.ts', 'ui'], ['ui.spec.ts', 'ui'], ['banner.test.ts', 'bash prints a banner'], ['lib.test.ts', 'Same Name']] as const) {
      const r = result(file === 'lib.test.ts' ? first.report : second.report, file, name);
      expect(r.status, r.failureMessages.join('\n')).toBe('passed');
    }
    expect(goldensAfterSecond).toEqual(goldensAfterFirst);
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
    expect(echoCandidate).toContain('\\"x\\":1');
    // Under -u the tape itself takes the live response, and its candidate goes.
    expect(result(third.report, 'lib.test.ts', 'a drifting tape leaves a candidate').status).toBe('passed');
    expect(readFileSync(join(libU, 'tapes/echo.ndjson'), 'utf8')).toContain('\\"x\\":1');
    expect(existsSync(join(libU, 'tapes/echo.ndjson.new'))).toBe(false);
    const missing = result(first.report, 'lib.test.ts', 'a missing tape names its path').failureMessages.join('\n');
    expect(missing.split('\n')[0]).toMatch(/tape .*lib\/tapes\/missing\.ndjson does not exist/);
  });

  test('a passing screenshot golden removes the stale .actual.png and .diff.png', () => {
    expect(result(first.report, 'lib.test.ts', 'screenshot golden').status).toBe('passed');
    expect(readdirSync(join(lib, 'goldens/test/lib.test.ts')).filter((f) => f.startsWith('screenshot')).sort()).toEqual(['screenshot-golden.png']);
  });

  test('each run ends with one line on stderr saying what happened to goldens', () => {
    // Written: 4 names, 2 ui, the mid-draw screen, 2 banner screens, the local-only test, the screenshot,
    // "Same Name", the exchange. Candidates: the changed screen and the drifting tape. Obsolete: ui's old-name.txt.
    // On stderr: stdout may be a machine-read report.
    const line = (run: typeof first) => run.res.stderr.match(/tapedeck goldens:.*/)?.[0];
    expect(line(first)).toContain('tapedeck goldens: 13 written, 0 updated, 1 obsolete, 2 candidates left (.new)');
    expect(line(second)).toContain('tapedeck goldens: 0 written, 0 updated, 1 obsolete, 0 candidates left (.new)');
    // -u: the changed screen and the drifting tape are updated, old-name.txt removed.
    expect(line(third), third.res.stderr.slice(-3000)).toContain('tapedeck goldens: 0 written, 2 updated, 1 obsolete (1 removed), 0 candidates left (.new)');
    // With the reporter registered the workers leave the line to it: one line per run, not one per file.
    for (const run of [first, second, third]) {
      expect(run.res.stderr.match(/tapedeck goldens:/g)).toHaveLength(1);
      expect(run.res.stdout).not.toContain('tapedeck goldens:');
    }
  });

  test('a missing golden is written in a reviewable format', () => {
    const folder = join(app, 'goldens/test/banner.test.ts');
    const lines = readFileSync(join(folder, 'bash-prints-a-banner.txt'), 'utf8').split('\n');
    expect(lines[0]).toBe('tapedeck-screen v1 cols=40 rows=6 cursor=2,0 cursor-visible=yes alt-screen=no');
    expect(lines[1]).toBe(`${'hello from bash'.padEnd(40)}│`);
    expect(lines[2]).toBe(`${'green'.padEnd(40)}│`);
    expect(readFileSync(join(folder, 'bash-prints-a-banner-2.txt'), 'utf8')).toContain('--- styles\n1:0-4 fg=green bold\n');
  });

  test('a changed screen fails with a diff and leaves .new; on CI nothing is written; -u rewrites it and the .new goes', () => {
    const changed = result(first.report, 'banner.test.ts', 'a changed screen');
    expect(changed.status).toBe('failed');
    const message = changed.failureMessages.join('\n');
    expect(message).toContain('screen differs from golden app/goldens/test/banner.test.ts/a-changed-screen.txt');
    expect(message).toMatch(/-\s*hello from zsh\s+│/);
    expect(message).toMatch(/\+\s*hello from bash\s+│/);
    expect(message).toContain('vitest -u');
    expect(goldensAfterFirst['test/banner.test.ts/a-changed-screen.txt.new']).toBeDefined();
    expect(result(second.report, 'banner.test.ts', 'a changed screen').status).toBe('failed');
    expect(result(third.report, 'banner.test.ts', 'a changed screen').status).toBe('passed');
    const folder = join(appU, 'goldens/test/banner.test.ts');
    expect(readFileSync(join(folder, 'a-changed-screen.txt'), 'utf8')).toContain('hello from bash');
    expect(existsSync(join(folder, 'a-changed-screen.txt.new'))).toBe(false);
  });

  test('on CI a missing golden fails and says how to create it', () => {
    const missing = result(second.report, 'banner.test.ts', 'a test only CI runs');
    expect(missing.status).toBe('failed');
    expect(missing.failureMessages.join('\n')).toContain('golden app/goldens/test/banner.test.ts/a-test-only-CI-runs.txt does not exist, and on CI (CI is set) goldens are never written');
  });

  test('obsolete goldens are reported, removed under -u; a tape replayed from the goldens folder never is', () => {
    expect(first.res.stdout + first.res.stderr).toContain('1 obsolete golden(s) no test in this file uses');
    expect(third.res.stdout + third.res.stderr).toContain('removed 1 obsolete golden(s)');
    expect(existsSync(join(appU, 'goldens/test/ui.test.ts/old-name.txt'))).toBe(false);
    expect(existsSync(join(appU, 'goldens/test/ui.test.ts/ui.txt'))).toBe(true);
    for (const run of [first, second, third]) expect(result(run.report, 'cast.test.ts', 'the bash tape replays').status).toBe('passed');
    expect(existsSync(join(app, 'goldens/test/cast.test.ts/bash-echo.cast'))).toBe(true);
    expect(existsSync(join(appU, 'goldens/test/cast.test.ts/bash-echo.cast'))).toBe(true);
  });

  test('web-first matchers retry until the screen matches, and .not waits for text to go', () => {
    for (const name of ['text that appears later is waited for; .not waits for it to go', 'a program that exits']) {
      const r = result(first.report, 'banner.test.ts', name);
      expect(r.status, r.failureMessages.join('\n')).toBe('passed');
    }
  });

  test('a failing test ends its terminal: no process outlives the run', () => {
    const thrown = result(first.report, 'agent.test.ts', 'a test that throws still ends its terminal');
    expect(thrown.failureMessages.join('\n')).toContain('deliberate failure');
    expect(leftBehind).toEqual([]);
  });

  test('protocol matchers: a tape replays cleanly, an exchange is a golden, a crash is named', () => {
    expect(result(first.report, 'agent.test.ts', 'the agent tape replays cleanly').status).toBe('passed');
    const tape = join(lib, 'goldens/test/agent.test.ts/one-exchange-from-a-live-server-is-a-golden.ndjson');
    const pairs = readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(pairs.map((p) => p.request)).toEqual(['{"op":"explain","code":"MT4099"}', '{"op":"fmt","path":"main.mty","check":true}']);
    expect(pairs[1].response).toContain('"would_reformat":true');
    expect(result(third.report, 'agent.test.ts', 'one exchange from a live server is a golden').status).toBe('passed');
    const crash = result(first.report, 'agent.test.ts', 'a server that crashes mid-exchange fails, saying so').failureMessages.join('\n');
    expect(crash).toContain('server exited (exit code 3) before completing this response');
  });

  test('matcher typings accept only what the matchers handle; key names are a typed union; the TypeScript examples of README and docs compile', async () => {
    const { res, examples } = await typecheck;
    expect(examples).toBeGreaterThanOrEqual(4);
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
      const cli = join(mono, 'node_modules/.bin/tapedeck');
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
