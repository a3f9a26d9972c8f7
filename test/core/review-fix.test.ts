import { copyFileSync, existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { spawnTerminal, replayProtocolTape } from '../../src/index.js';
import { AGENT_SERVER, CLI, ROOT, run, tapedeck, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

const AGENT_GOLDEN = join(ROOT, 'goldens/agent-server.ndjson');

const temp = useTempDirs();

/** The example server with two answers changed, as a real program. */
function changedServer(dir: string): string[] {
  const path = join(dir, 'server.mjs');
  const source = readFileSync(join(ROOT, 'examples/agent-server.mjs'), 'utf8')
    .replace("ok: true, code: req.code, text }", "ok: true, code: req.code, text, lang: 'en' }")
    .replace("would_reformat: wouldReformat }", "would_reformat: wouldReformat, style: 'k&r' }");
  writeFileSync(path, source);
  return ['node', path];
}

describe('tapedeck fix --apply --from-stdin', () => {
  test('drift envelopes from replay --json are applied to the tape, highest line first, and the tape then replays clean', async () => {
    const dir = temp();
    const tape = join(dir, 'agent.ndjson');
    copyFileSync(AGENT_GOLDEN, tape);
    const server = changedServer(dir);
    const replay = await tapedeck(['replay', tape, '--json', '--', ...server], { env: { AGENT_SERVER_ROOT: join(ROOT, 'examples/project') } });
    expect(replay.code).toBe(1);
    const envelopes = replay.stdout;
    expect(envelopes.trim().split('\n')).toHaveLength(2); // two envelopes, nothing else on stdout

    const strict = await tapedeckInProcess(['fix', '--apply', '--from-stdin', '--threshold', '0.9'], { input: envelopes });
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('confidence 0.6 is below the threshold 0.9');
    expect(readFileSync(tape, 'utf8')).toBe(readFileSync(AGENT_GOLDEN, 'utf8'));

    // Seed 001's default threshold (0.85) leaves accepting drift (0.6) to an explicit option.
    const plain = await tapedeckInProcess(['fix', '--apply', '--from-stdin'], { input: envelopes });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('confidence 0.6 is below the threshold 0.85');
    // The loop's decision (docs/formats.md): the seed's exit code, and one line naming what applies them.
    expect(plain.stderr).toContain("2 of them accept drift (tapedeck's own fixes, confidence 0.6): add --accept-drift to apply them\n");
    const fix = await tapedeckInProcess(['fix', '--apply', '--from-stdin', '--accept-drift'], { input: envelopes });
    // Seed 001's stderr, exactly: one "applied CODE — LABEL" line per fix, then the tally.
    expect(fix.stderr).toBe('applied TD1001 — accept the live response\napplied TD1001 — accept the live response\nApplied 2 fixes (TD1001 ×2)\n');
    expect(fix.code).toBe(0);
    const clean = await tapedeck(['replay', tape, '--', ...server], { env: { AGENT_SERVER_ROOT: join(ROOT, 'examples/project') } });
    expect(clean.code).toBe(0);

    // The same envelopes again: the old lines are gone, so nothing is forced in.
    const stale = await tapedeckInProcess(['fix', '--apply', '--from-stdin', '--accept-drift'], { input: envelopes });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('do not match (stale diff)');
    expect(stale.stderr).toContain('Applied 0 fixes\n');
    expect(stale.stderr).toContain('Not applied: 2 (TD1001 ×2)\n');
  });

  test('--code filters envelopes, and bad input is exit 2', async () => {
    const dir = temp();
    const tape = join(dir, 'agent.ndjson');
    copyFileSync(AGENT_GOLDEN, tape);
    const replay = await tapedeck(['replay', tape, '--json', '--', ...changedServer(dir)]);
    const none = await tapedeckInProcess(['fix', '--apply', '--from-stdin', '--code', 'TD1004'], { input: replay.stdout });
    expect(none.stderr).toBe('Applied 0 fixes\n');
    expect(readFileSync(tape, 'utf8')).toBe(readFileSync(AGENT_GOLDEN, 'utf8'));
    const bad = await tapedeckInProcess(['fix', '--apply', '--from-stdin'], { input: '{"schema_version":"1.0"\n' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('<stdin>:1: not JSON');
  });
});

describe('pending goldens and tapedeck review', () => {
  function pendingProject(dir: string) {
    const goldens = join(dir, 'goldens');
    mkdirSync(join(goldens, 'screens'), { recursive: true });
    writeFileSync(join(goldens, 'screens/a.txt'), 'old screen\n');
    writeFileSync(join(goldens, 'screens/a.txt.new'), 'new screen\n');
    writeFileSync(join(goldens, 'screens/b.txt.new'), 'brand new\n');
    copyFileSync(join(ROOT, 'goldens/screenshots/cli/styles-at-drawn.png'), join(goldens, 'screens/c.png'));
    copyFileSync(join(ROOT, 'goldens/screenshots/cli/styles-at-drawn.png'), join(goldens, 'screens/c.png.new'));
    writeFileSync(join(goldens, 'screens/c.actual.png'), 'x');
    writeFileSync(join(goldens, 'screens/c.diff.png'), 'x');
    return goldens;
  }

  test('a drifted replay leaves the accepting tape as <tape>.new, and a clean one removes it', async () => {
    const dir = temp();
    const tape = join(dir, 'agent.ndjson');
    copyFileSync(AGENT_GOLDEN, tape);
    const drifted = await replayProtocolTape(tape, { command: changedServer(dir), writePending: true, env: { ...process.env, AGENT_SERVER_ROOT: join(ROOT, 'examples/project') } });
    expect(drifted.pendingPath).toBe(`${tape}.new`);
    expect(readFileSync(tape, 'utf8')).toBe(readFileSync(AGENT_GOLDEN, 'utf8'));
    expect(readFileSync(`${tape}.new`, 'utf8')).toContain('\\"lang\\":\\"en\\"');
    const clean = await replayProtocolTape(tape, { command: AGENT_SERVER, writePending: true });
    expect(clean.drifts).toEqual([]);
    expect(existsSync(`${tape}.new`)).toBe(false);
  });

  test('lists pending goldens with diffs, then accepts and rejects them by path or all', async () => {
    const dir = temp();
    pendingProject(dir);
    const list = await tapedeckInProcess(['review'], { cwd: dir });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('== goldens/screens/a.txt\n--- a/goldens/screens/a.txt\n+++ b/goldens/screens/a.txt');
    expect(list.stdout).toContain('-old screen\n+new screen');
    expect(list.stdout).toContain('== goldens/screens/b.txt (new)');
    expect(list.stdout).toContain('== goldens/screens/c.png (image)');
    expect(list.stderr).toContain('3 pending golden(s)');
    const json = await tapedeckInProcess(['review', '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout).result.pending.map((p: { golden: string }) => p.golden)).toEqual(['goldens/screens/a.txt', 'goldens/screens/b.txt', 'goldens/screens/c.png']);

    const reject = await tapedeckInProcess(['review', '--reject', 'goldens/screens/c.png'], { cwd: dir });
    expect(reject.code).toBe(0);
    expect(existsSync(join(dir, 'goldens/screens/c.png.new'))).toBe(false);
    expect(existsSync(join(dir, 'goldens/screens/c.diff.png'))).toBe(false);
    expect(existsSync(join(dir, 'goldens/screens/c.png'))).toBe(true);
    const accept = await tapedeckInProcess(['review', '--accept', 'all'], { cwd: dir });
    expect(accept.stderr).toContain('accepted goldens/screens/a.txt');
    expect(readFileSync(join(dir, 'goldens/screens/a.txt'), 'utf8')).toBe('new screen\n');
    expect(readFileSync(join(dir, 'goldens/screens/b.txt'), 'utf8')).toBe('brand new\n');
    expect((await tapedeckInProcess(['review', '--json'], { cwd: dir })).stdout).toContain('"pending":[]');
  });

  test('interactive review on a terminal: y accepts, n rejects', async () => {
    const dir = temp();
    pendingProject(dir);
    const term = spawnTerminal('node', [CLI, 'review'], { rows: 30, cols: 100, cwd: dir });
    try {
      await term.waitForText('[1/3] == goldens/screens/a.txt');
      await term.waitForText('accept this change?');
      term.type('y\r');
      await term.waitForText('[2/3] == goldens/screens/b.txt (new)');
      term.type('n\r');
      await term.waitForText('[3/3]');
      term.type('s\r');
      expect((await term.waitForExit()).exitCode).toBe(0);
    } finally {
      await term.dispose();
    }
    expect(readFileSync(join(dir, 'goldens/screens/a.txt'), 'utf8')).toBe('new screen\n');
    expect(existsSync(join(dir, 'goldens/screens/b.txt'))).toBe(false);
    expect(existsSync(join(dir, 'goldens/screens/b.txt.new'))).toBe(false);
    expect(existsSync(join(dir, 'goldens/screens/c.png.new'))).toBe(true); // skipped: still pending
  });
});
