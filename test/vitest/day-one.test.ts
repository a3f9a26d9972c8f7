import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT, run } from '../helpers/cli.js';
import { vitestProject, type VitestAssertion, type VitestProject, type VitestRun } from '../helpers/vitest-project.js';

/**
 * A first day in a project (issue 27.2, 27.3, 27.5, 27.6), through a vitest
 * fixture project (test/fixtures/vitest/day-one) run twice with both cores
 * kept busy: masked spinners (redrawn every 40 ms) get goldens written and
 * then matched; a CRLF checkout of a golden matches; a program that dies on
 * start is reported as exited with its code and last lines, and its screen is
 * never written as a golden; `--reporter=json` on stdout stays JSON, and with
 * tapedeck's reporter the counts are in vitest's snapshot summary.
 * TAPEDECK_SOAK=1 runs the spinner 20 times per run.
 */
const SPINNER_RUNS = process.env.TAPEDECK_SOAK === '1' ? 20 : 3;
const GOLDENS = 'goldens/test/day-one.test.ts';

/** A committed 20x3 screen golden of these lines, cursor at the start of row `cursorRow`. */
function screenGolden(lines: string[], cursorRow: number, eol: string): string {
  const rows = Array.from({ length: 3 }, (_, i) => `${(lines[i] ?? '').padEnd(20)}│`);
  return [`tapedeck-screen v1 cols=20 rows=3 cursor=${cursorRow},0 cursor-visible=yes alt-screen=no`, ...rows].join(eol) + eol;
}

function byName(r: VitestRun, name: string): VitestAssertion {
  const a = r.assertions.find((x) => x.fullName === name);
  if (!a) throw new Error(`no result for ${name}: ${r.stdout}\n${r.stderr}`);
  return a;
}

let p: VitestProject;
let busy: ChildProcess[] = [];
let first: VitestRun & { json?: { success: boolean; testResults: { assertionResults: VitestAssertion[] }[] } };
let second: VitestRun;

beforeAll(async () => {
  p = vitestProject({}, 'day-one', 'day-one');
  p.write(`${GOLDENS}/crlf-golden.txt`, screenGolden(['hello', 'world'], 2, '\r\n'));
  // Both cores busy for both runs.
  busy = [0, 1].map(() => spawn('node', ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  try {
    const env = { CI: '', TAPEDECK_UPDATE: '', FORCE_COLOR: '0', NO_COLOR: '1', SPINNER_RUNS: String(SPINNER_RUNS) };
    // Run 1: the JSON report alone, on stdout (as `vitest run --reporter=json | jq` reads it).
    const res = await run(['node', join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=json'], { cwd: p.dir, env, timeoutMs: 240_000 });
    let json;
    try {
      json = JSON.parse(res.stdout);
    } catch {
      json = undefined;
    }
    first = { ...res, json, assertions: json?.testResults.flatMap((f: { assertionResults: VitestAssertion[] }) => f.assertionResults) ?? [] };
    // Run 2: with tapedeck's reporter, after removing one golden so there is one to write.
    rmSync(join(p.dir, GOLDENS, 'exit-allowed.txt'));
    second = await p.vitest(['--reporter=tapedeck/vitest/reporter'], { env, timeoutMs: 240_000 });
  } finally {
    for (const b of busy) b.kill('SIGKILL');
  }
}, 500_000);

afterAll(() => {
  for (const b of busy) b.kill('SIGKILL');
  p?.remove();
});

describe('masked spinners, both cores busy', () => {
  test(`a masked spinner's golden is written and then matched, ${SPINNER_RUNS} times each run, text and pixels`, () => {
    for (const r of [first, second]) {
      for (let n = 1; n <= SPINNER_RUNS; n++) expect(byName(r, `masked spinner ${n}`), `${r.stderr}`).toMatchObject({ status: 'passed' });
      expect(byName(r, 'masked spinner screenshot').failureMessages.join('\n')).toBe('');
    }
    const spinners = p.files(GOLDENS).filter((f) => /^masked-spinner-\d/.test(f));
    expect(spinners).toHaveLength(SPINNER_RUNS);
    for (const f of spinners) expect(p.read(`${GOLDENS}/${f}`)).toContain('░ working');
    expect(existsSync(join(p.dir, GOLDENS, 'masked-spinner-screenshot.png'))).toBe(true);
    expect(p.files(GOLDENS).filter((f) => f.endsWith('.new'))).toEqual([]);
  });
});

describe('line endings', () => {
  test('a golden checked out with CRLF matches, and no .new is left', () => {
    for (const r of [first, second]) expect(byName(r, 'crlf golden').failureMessages.join('\n')).toBe('');
    expect(existsSync(join(p.dir, GOLDENS, 'crlf-golden.txt.new'))).toBe(false);
  });
});

describe('a program that dies on start', () => {
  test('a text assertion says it exited, with its code and the last lines it wrote', () => {
    const message = byName(first, 'crash: text').failureMessages.join('\n');
    expect(message).toContain('expected screen to contain "Todo" (the program `node');
    expect(message).toMatch(/exited with code 1/);
    expect(message).toContain('boom on start: cannot find module ./store.js');
  });

  test('its screen is never written as a golden, and the failure says why', () => {
    for (const r of [first, second]) {
      const message = byName(r, 'crash: golden').failureMessages.join('\n');
      expect(message).toContain('not writing golden');
      expect(message).toMatch(/exited with code 1; the last lines it wrote/);
      expect(message).toContain('boom on start');
    }
    expect(p.files(GOLDENS).filter((f) => f.startsWith('crash'))).toEqual([]);
  });

  test('{ allowExit: true } keeps it, and stderr says the program had exited', () => {
    expect(byName(first, 'exit allowed').status).toBe('passed');
    expect(second.stderr).toMatch(/wrote golden \S*exit-allowed\.txt from the screen of a program that had exited \(code 1\)/);
  });
});

describe('output that pipes', () => {
  test('with --reporter=json alone, stdout is the JSON report and tapedeck\'s line is on stderr', () => {
    expect(first.json, first.stdout.slice(0, 500)).toBeDefined();
    expect(first.stdout).not.toContain('tapedeck goldens');
    expect(first.stderr).toMatch(/tapedeck goldens: \d+ written/);
  });

  test("with tapedeck's reporter, its counts are in vitest's snapshot summary and its line on stderr", () => {
    expect(second.report?.snapshot).toMatchObject({ added: 1, unmatched: 0, updated: 0 });
    expect(second.stdout).toMatch(/Snapshots\s+1 written/);
    expect(second.stderr).toMatch(/tapedeck goldens: 1 written, 0 updated, 0 obsolete, 0 candidates left/);
    expect(second.stdout).not.toMatch(/tapedeck goldens/);
  });
});
