import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI, ROOT, tapedeck, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

const temp = useTempDirs();

/** A scratch project with the agent tape and the bash cast, so pending files land there. */
function project(): string {
  const dir = temp();
  mkdirSync(join(dir, 'goldens/terminal'), { recursive: true });
  copyFileSync(join(ROOT, 'goldens/agent-server.ndjson'), join(dir, 'goldens/agent.ndjson'));
  copyFileSync(join(ROOT, 'goldens/terminal/bash-echo.cast'), join(dir, 'goldens/terminal/bash-echo.cast'));
  return dir;
}

const CRASHING = { AGENT_SERVER_CRASH_ON: 'explain' };
const server = ['--', 'node', join(ROOT, 'examples/agent-server.mjs')];

describe('replay reports for CI and reviewers', () => {
  test('--reporter junit --out writes one test case per tape, drifts as failures', async () => {
    const dir = project();
    const res = await tapedeck(['replay', 'goldens/agent.ndjson', '--reporter', 'junit', '--out', 'junit.xml', ...server], { cwd: dir, env: { ...CRASHING, AGENT_SERVER_ROOT: join(ROOT, 'examples/project') } });
    expect(res.code).toBe(1);
    const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="tapedeck replay" tests="1" failures="1"/);
    expect(xml).toContain('<testcase classname="tapedeck.protocol" name="goldens/agent.ndjson" file="goldens/agent.ndjson"');
    expect(xml).toContain('<failure message="1 drift(s) in 7 pairs: server exited (exit code 3) before completing this response" type="TD1003">');
    expect(xml).toContain('agent-server: panic while handling explain');
    const bad = await tapedeckInProcess(['replay', 'goldens/agent.ndjson', '--reporter', 'tap', '--out', 'x', ...server], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--reporter takes junit, github or json');
  });

  test('with GITHUB_ACTIONS=true each drift is a workflow annotation at its tape line', async () => {
    const dir = project();
    const res = await tapedeck(['replay', 'goldens/agent.ndjson', ...server], { cwd: dir, env: { ...CRASHING, GITHUB_ACTIONS: 'true', AGENT_SERVER_ROOT: join(ROOT, 'examples/project') } });
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^::error file=goldens\/agent\.ndjson,line=3,title=TD1003 server exited \(exit code 3\) before completing this response::pair\/step 3: \{"op":"explain","code":"MT4099"\}%0A/m);
    const quiet = await tapedeckInProcess(['replay', 'goldens/agent.ndjson', ...server], { cwd: dir, env: { ...CRASHING, GITHUB_ACTIONS: '' } });
    expect(quiet.stdout).toBe('');
  });

  test('a drift leaves <tape>.new for review locally, never on CI', async () => {
    const dir = project();
    const changed = ['--', 'env', 'PS1=other> ', 'HISTFILE=', 'bash', '--norc', '--noprofile'];
    const onCi = await tapedeckInProcess(['replay', 'goldens/terminal/bash-echo.cast', '--step-timeout-ms', '300', ...changed], { cwd: dir, env: { CI: 'true' } });
    expect(onCi.code).toBe(1);
    expect(existsSync(join(dir, 'goldens/terminal/bash-echo.cast.new'))).toBe(false);
    const local = await tapedeckInProcess(['replay', 'goldens/terminal/bash-echo.cast', '--step-timeout-ms', '300', ...changed], { cwd: dir, env: { CI: '' } });
    expect(local.code).toBe(1);
    expect(existsSync(join(dir, 'goldens/terminal/bash-echo.cast.new'))).toBe(true);
    const review = await tapedeckInProcess(['review', '--json'], { cwd: dir });
    expect(JSON.parse(review.stdout).result.pending.map((p: { golden: string }) => p.golden)).toEqual(['goldens/terminal/bash-echo.cast']);
  });

  test('tapedeck report writes a self-contained HTML report with both kinds of drift', async () => {
    const dir = project();
    // The golden says the shell printed "HELLO": the live "hello" is a checkpoint drift at the marker.
    const cast = join(dir, 'goldens/terminal/bash-echo.cast');
    writeFileSync(cast, readFileSync(cast, 'utf8').replace('"hello\\r\\n', '"HELLO\\r\\n'));
    expect(readFileSync(cast, 'utf8')).toContain('HELLO');
    const res = await tapedeckInProcess(
      ['report', '--out', 'report.html', 'goldens/agent.ndjson', 'goldens/terminal/bash-echo.cast', '--step-timeout-ms', '300', ...server],
      { cwd: dir, env: { ...CRASHING, AGENT_SERVER_ROOT: join(ROOT, 'examples/project') } },
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`wrote the report to ${join(dir, 'report.html')}`); // in this process, paths print absolute
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('<span><b>2</b> tape(s)</span>');
    expect(html).toContain('data-code="TD1003"');
    expect(html).toContain('data-code="TD1102"');
    expect(html).toContain('data-player="recorded"');
    expect(html).toContain('data-player="replayed"');
    expect(html).toContain('drift: step');
    // Screenshots of the expected and actual screens, inlined.
    const shots = html.match(/data-shot="(expected|actual|diff)" src="data:image\/png;base64,/g) ?? [];
    expect(shots.length).toBeGreaterThanOrEqual(3);
    expect(shots.length % 3).toBe(0);
    expect(html).not.toMatch(/<script src=|<link [^>]*href="http/);
    // The bin: a clean run is exit 0, and the report's path prints as given.
    const clean = await tapedeck(['report', '--out', 'clean.html', 'goldens/agent.ndjson', ...server], { cwd: dir, env: { AGENT_SERVER_ROOT: join(ROOT, 'examples/project') } });
    expect([clean.code, clean.stderr]).toEqual([0, expect.stringContaining('tapedeck: wrote the report to clean.html\n')]);
    expect(readFileSync(join(dir, 'clean.html'), 'utf8')).toContain('<span><b>1</b> tape(s)</span>');
  }, 60_000);
});

describe('progress display', () => {
  test('on a terminal, long runs show which tape is done; piped, stderr has only the summary', async () => {
    const { spawnTerminal } = await import('../../src/index.js');
    const dir = project();
    for (const n of [1, 2, 3]) copyFileSync(join(dir, 'goldens/agent.ndjson'), join(dir, `goldens/copy${n}.ndjson`));
    const args = ['replay', 'goldens/*.ndjson', '--jobs', '1', ...server];
    const term = spawnTerminal('node', [CLI, ...args], { rows: 10, cols: 100, cwd: dir });
    try {
      await term.waitForExit({ timeoutMs: 30_000 });
      const output = Buffer.concat(term.events.events.flatMap((e) => (e.type === 'output' ? [e.data] : []))).toString('utf8');
      expect(output).toContain('replayed 1/4 tapes');
      expect(output).toContain('replayed 4/4 tapes');
      expect(await term.text()).toContain('4 tape(s), 28 pair(s), 0 drift(s)');
      expect(await term.text()).not.toContain('replayed 4/4'); // cleared before the summary
    } finally {
      await term.dispose();
    }
    const piped = await tapedeck(args, { cwd: dir });
    expect(piped.stderr).not.toContain('replayed');
  });
});
