import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT, tapedeck, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

/** Bad input gets a clear message naming what is wrong and exit 2, and nothing is lost (the CLI in-process: no process boundary needed). */
const temp = useTempDirs();
const AGENT = ['--', 'node', join(ROOT, 'examples/agent-server.mjs')];

describe('bad input is exit 2 with a clear message', () => {
  test('an unknown option of explain or version, instead of being ignored', async () => {
    const [explain, version] = await Promise.all([tapedeckInProcess(['explain', '--jsn', 'TD1001']), tapedeckInProcess(['version', '--verbose'])]);
    expect([explain.code, version.code]).toEqual([2, 2]);
    expect(explain.stderr).toContain('explain: unknown option --jsn');
    expect(version.stderr).toContain('version: unknown option --verbose');
  });

  test('a JSONPath whose filter does not parse, before anything runs', async () => {
    const res = await tapedeckInProcess(['replay', join(ROOT, 'goldens/agent-server.ndjson'), '--ignore', '$[?(@.kind ==)]', ...AGENT]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--ignore: invalid JSONPath "$[?(@.kind ==)]"');
    expect(res.stderr).not.toContain('internal error');
  });

  test('timeouts beyond what a timer can hold', async () => {
    const res = await tapedeckInProcess(['replay', join(ROOT, 'goldens/agent-server.ndjson'), '--timeout-ms', '3000000000', ...AGENT]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--timeout-ms expects a whole number from 1 to 2147483647');
  });

  test('a resize in a tape larger than a terminal can be, at its line', async () => {
    const dir = temp();
    const cast = join(dir, 'big.cast');
    writeFileSync(cast, '{"version": 2, "width": 20, "height": 4, "command": "true"}\n[0.1, "r", "20000x5"]\n');
    const res = await tapedeckInProcess(['replay', cast]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${cast}:2: resize event data must be "COLSxROWS" with sizes from 1 to 10000`);
  });

  test('fix: envelopes whose alternatives are malformed', async () => {
    const base = { schema_version: '1.0', code: 'TD1001', severity: 'error', span: { file: 'x', line: 1, col: 1, len: 1, byte_start: 0, byte_end: 1 }, title: 't', prose: 'p' };
    const cases: Array<[unknown, string]> = [
      [{ kind: 'k', confidence: 1, alternatives: [{ label: 'l', diff: 5, rationale: 'r', confidence: 1 }] }, 'fix.alternatives[0].diff must be a string'],
      [{ kind: 'k', confidence: 1, alternatives: 'no' }, '"fix.alternatives" must be an array'],
      [{ kind: 'k', confidence: 1, alternatives: [{ label: 'l', diff: '', rationale: 'r' }] }, 'fix.alternatives[0].confidence must be a number from 0 to 1'],
    ];
    for (const [fix, message] of cases) {
      const res = await tapedeckInProcess(['fix', '--apply', '--from-stdin'], { input: `${JSON.stringify({ ...base, fix })}\n` });
      expect(res.code).toBe(2);
      expect(res.stderr).toContain(`<stdin>:1: not a valid envelope: ${message}`);
    }
  });

  test('review: a path that is neither a golden nor a candidate', async () => {
    const dir = temp();
    mkdirSync(join(dir, 'goldens'));
    writeFileSync(join(dir, 'goldens/a.txt.new'), 'x\n');
    const res = await tapedeckInProcess(['review', '--accept', 'goldens/a.txt', 'goldens/nosuch.txt'], { cwd: dir });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('review: goldens/nosuch.txt: no such golden or pending candidate');
    expect(existsSync(join(dir, 'goldens/a.txt.new'))).toBe(true); // nothing accepted
  });
});

describe('candidates for review are only complete runs', () => {
  const changed = ['--', 'env', 'PS1=other> ', 'HISTFILE=', 'bash', '--norc', '--noprofile'];

  test('a --bail run leaves no <tape>.new, and an asciicast v1 drift is exit 1 with no candidate', async () => {
    const dir = temp();
    copyFileSync(join(ROOT, 'goldens/terminal/bash-echo.cast'), join(dir, 'bash.cast'));
    const bailed = await tapedeck(['replay', 'bash.cast', '--bail', '--step-timeout-ms', '300', ...changed], { cwd: dir, env: { CI: '' } });
    expect(bailed.code).toBe(1);
    expect(existsSync(join(dir, 'bash.cast.new'))).toBe(false);

    copyFileSync(join(ROOT, 'test/fixtures/casts/v1.cast'), join(dir, 'old.cast'));
    const v1 = await tapedeck(['replay', 'old.cast', '--step-timeout-ms', '300', '--', 'bash', '--norc', '--noprofile', '-c', 'echo something else'], { cwd: dir, env: { CI: '' } });
    expect(v1.stderr).not.toContain('cannot rewrite');
    expect(v1.code).toBe(1);
    expect(existsSync(join(dir, 'old.cast.new'))).toBe(false);
  });

  test('--report without a browser still writes the report, and the run keeps its exit code', async () => {
    const dir = temp();
    copyFileSync(join(ROOT, 'goldens/terminal/bash-echo.cast'), join(dir, 'bash.cast'));
    const res = await tapedeck(['replay', 'bash.cast', '--step-timeout-ms', '300', '--report', 'r.html', ...changed], { cwd: dir, env: { TAPEDECK_CHROMIUM: '/nonexistent/chromium' } });
    expect(res.code).toBe(1);
    expect(existsSync(join(dir, 'r.html'))).toBe(true);
  });
});
