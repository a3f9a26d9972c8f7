import { copyFileSync, mkdirSync, readFileSync, realpathSync, symlinkSync, lstatSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { AGENT_SERVER, CLI, ROOT, run, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

/** Issue 13's CLI contracts: pipes, empty tapes, limits, sessions, review scope, symlinks, seed-001 fix. */
const temp = useTempDirs();
const AGENT_GOLDEN = join(ROOT, 'goldens/agent-server.ndjson');
const ECHO = ['node', join(ROOT, 'examples/echo-server.mjs')];
const FLOOD = join(ROOT, 'test/fixtures/flood-server.mjs');

function pair(request: unknown, response: unknown): string {
  return JSON.stringify({ request: JSON.stringify(request), response: `${JSON.stringify(response)}\n` });
}

/** An echo-server tape whose one pair drifts by a byte at the end of a big value. */
function bigDriftTape(dir: string, size: number): string {
  const big = 'x'.repeat(size);
  const tape = join(dir, 'big.ndjson');
  writeFileSync(tape, `${pair({ jsonrpc: '2.0', id: 1, method: 'echo', params: { s: big } }, { jsonrpc: '2.0', id: 1, result: { s: `${big.slice(0, -1)}y` } })}\n`);
  return tape;
}

describe('output and input contracts', () => {
  test('a large --json through a slow pipe arrives whole', async () => {
    const dir = temp();
    const tape = bigDriftTape(dir, 250_000); // the envelope carries the value several times: over 1 MB
    const res = await run(['bash', '-c', `node ${CLI} replay ${tape} --json -- ${ECHO.join(' ')} 2>/dev/null | (sleep 1; cat)`], { env: { CI: '1' } });
    expect(res.stdout.length).toBeGreaterThan(1_000_000);
    const envelope = JSON.parse(res.stdout);
    expect(envelope.code).toBe('TD1001');
    expect(envelope.prose).toContain('$.result.s: differs at character 250000 of 250000');
  });

  test('an empty tape is exit 2 naming it, unless --allow-empty', async () => {
    const dir = temp();
    const tape = join(dir, 'empty.ndjson');
    writeFileSync(tape, '\n');
    const res = await tapedeckInProcess(['replay', tape, '--', ...ECHO]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${tape}:1: the tape has no pairs`);
    const allowed = await tapedeckInProcess(['replay', tape, '--allow-empty', '--', ...ECHO]);
    expect(allowed.code).toBe(0);
  });

  test('a response over --max-response-bytes is drift TD1006 naming the limit; the server is stopped', async () => {
    const dir = temp();
    const tape = join(dir, 'flood.ndjson');
    writeFileSync(tape, `${pair({ op: 'check' }, { kind: 'done', exit_code: 0 })}\n`);
    const res = await tapedeckInProcess(['replay', tape, '--max-response-bytes', '1000000', '--timeout-ms', '60000', '--', 'node', FLOOD, 'flood']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('response larger than the 1000000-byte limit (--max-response-bytes) [TD1006]');
    expect(res.stderr).toMatch(/received \d{7} bytes: "\{\\"kind\\":\\"log\\",\\"text\\":\\"xxx/);
  });

  test('TD1002 shows the partial line the server wrote before it hung', async () => {
    const dir = temp();
    const tape = join(dir, 'partial.ndjson');
    writeFileSync(tape, `${pair({ op: 'check' }, { kind: 'done', exit_code: 0 })}\n`);
    // The timeout includes the server's start, which a loaded machine stretched past 1.5 s.
    const res = await tapedeckInProcess(['replay', tape, '--timeout-ms', '5000', '--', 'node', FLOOD, 'partial']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('[TD1002]');
    expect(res.stderr).toContain('received so far: 37 bytes: "{\\"kind\\":\\"result\\",\\"op\\":\\"check\\",\\"ok\\":tr"');
  });
});

describe('seed 000 sessions', () => {
  test('single-shot: each pair against a fresh server with stdin closed, its exit code checked', async () => {
    const dir = temp();
    const tape = join(dir, 'single.ndjson');
    const server = ['node', join(ROOT, 'examples/agent-server.mjs'), '--single-shot'];
    for (const req of ['{"op":"explain","code":"MT4099"}', '{"op":"explain","code":"MT0000"}']) {
      await tapedeckInProcess(['record', '--out', tape, '--', ...server], { input: req });
    }
    expect(readFileSync(tape, 'utf8').trim().split('\n')).toHaveLength(2);
    const res = await tapedeckInProcess(['replay', tape, '--single-shot', '--', ...server]);
    expect(res.stderr).toContain('0 drift(s)');
    expect(res.code).toBe(0);
    // Without --single-shot the server waits for its stdin to close: the first response never ends.
    const interactive = await tapedeckInProcess(['replay', tape, '--timeout-ms', '1000', '--', ...server]);
    expect(interactive.code).toBe(1);
  });

  test('appended sessions (each ending in halt) replay each against a fresh server', async () => {
    const dir = temp();
    const tape = join(dir, 'sessions.ndjson');
    await tapedeckInProcess(['record', '--out', tape, '--', ...AGENT_SERVER], { input: '{"op":"version"}\n{"op":"halt"}\n' });
    await tapedeckInProcess(['record', '--out', tape, '--', ...AGENT_SERVER], { input: '{"op":"explain","code":"MT4099"}\n{"op":"halt"}\n' });
    const res = await tapedeckInProcess(['replay', tape, '--', ...AGENT_SERVER]);
    expect(res.stderr).toContain('(4 pairs');
    expect(res.code).toBe(0);
  });
});

describe('per-tape scratch directory', () => {
  test('--setup prepares each tape\'s {{tapedeck.tmpdir}}; a failing setup is exit 2 naming the tape', async () => {
    const server = ['env', 'AGENT_SERVER_ROOT={{tapedeck.tmpdir}}', ...AGENT_SERVER];
    const setup = `cp -R ${join(ROOT, 'examples/project')}/. "$TAPEDECK_TMPDIR"`;
    const res = await tapedeckInProcess(['replay', AGENT_GOLDEN, '--setup', setup, '--', ...server]);
    expect(res.stderr).toContain('0 drift(s)');
    expect(res.code).toBe(0);
    // An empty scratch directory: files missing. Replayed from a copy, so its candidate (.new) stays out of the repository.
    const copy = join(temp(), 'agent-server.ndjson');
    copyFileSync(AGENT_GOLDEN, copy);
    const bare = await tapedeckInProcess(['replay', copy, '--', ...server]);
    expect(bare.code).toBe(1);
    const failing = await tapedeckInProcess(['replay', AGENT_GOLDEN, '--setup', 'echo no such fixture >&2; exit 3', '--', ...server]);
    expect(failing.code).toBe(2);
    expect(failing.stderr).toContain(`${AGENT_GOLDEN}: the setup command failed (exit 3)`);
    expect(failing.stderr).toContain('no such fixture');
  });

  test('a path inside the scratch directory is stored as {{tapedeck.tmpdir}} and replays clean in a new one', async () => {
    const dir = temp();
    const server = join(dir, 'where.mjs');
    writeFileSync(
      server,
      `import { createInterface } from 'node:readline';
createInterface({ input: process.stdin }).on('line', (l) => { const m = JSON.parse(l); process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { file: process.argv[2] + '/state.json' } }) + '\\n'); });
`,
    );
    const tape = join(dir, 'where.ndjson');
    const cmd = ['node', server, '{{tapedeck.tmpdir}}'];
    await tapedeckInProcess(['record', '--out', tape, '--', ...cmd], { input: '{"jsonrpc":"2.0","id":1,"method":"where"}\n' });
    expect(JSON.parse(readFileSync(tape, 'utf8')).response).toBe('{"jsonrpc":"2.0","id":1,"result":{"file":"{{tapedeck.tmpdir}}/state.json"}}\n');
    const res = await tapedeckInProcess(['replay', tape, '--', ...cmd]);
    expect(res.code).toBe(0);
  });
});

describe('review and symlinked goldens', () => {
  test('review PATH --accept all acts only under PATH, and names PATH when nothing is pending there', async () => {
    const dir = temp();
    for (const sub of ['a', 'b']) {
      mkdirSync(join(dir, sub));
      writeFileSync(join(dir, sub, 't.ndjson'), 'old\n');
      writeFileSync(join(dir, sub, 't.ndjson.new'), 'new\n');
    }
    const res = await tapedeckInProcess(['review', 'a', '--accept', 'all'], { cwd: dir });
    expect(res.code).toBe(0);
    expect(readFileSync(join(dir, 'a/t.ndjson'), 'utf8')).toBe('new\n');
    expect(readFileSync(join(dir, 'b/t.ndjson'), 'utf8')).toBe('old\n');
    const again = await tapedeckInProcess(['review', 'a', '--accept', 'all'], { cwd: dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('nothing pending under a');
  });

  test('--update, review --accept and fix --apply write through a symlinked tape to its target', async () => {
    const dir = temp();
    const changed = join(dir, 'server.mjs');
    writeFileSync(changed, readFileSync(join(ROOT, 'examples/agent-server.mjs'), 'utf8').replace('ok: true, code: req.code, text }', "ok: true, code: req.code, text, lang: 'en' }"));
    const real = join(dir, 'store', 'agent.ndjson');
    mkdirSync(join(dir, 'store'));
    const link = join(dir, 'agent.ndjson');
    symlinkSync(real, link);
    copyFileSync(AGENT_GOLDEN, real);
    expect((await tapedeckInProcess(['replay', link, '--update', '--', 'node', changed])).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toContain('lang');

    copyFileSync(AGENT_GOLDEN, real);
    // Locally (not on CI) a drifted replay leaves the candidate that review accepts.
    const local = { CI: '', TAPEDECK_UPDATE: '' };
    expect((await tapedeckInProcess(['replay', link, '--', 'node', changed], { env: local })).code).toBe(1);
    expect((await tapedeckInProcess(['review', link, '--accept', 'all'], { env: local })).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toContain('lang');

    copyFileSync(AGENT_GOLDEN, real);
    const replay = await tapedeckInProcess(['replay', link, '--json', '--', 'node', changed], { env: { CI: '1' } });
    const fix = await tapedeckInProcess(['fix', '--apply', link, '--accept-drift'], { input: replay.stdout });
    expect(fix.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(realpathSync(link)).toBe(realpathSync(real));
    expect(readFileSync(real, 'utf8')).toContain('lang');
  });
});

describe('fix per seed 001', () => {
  function envelopeFor(file: string, extra: Record<string, unknown> = {}) {
    const diff = `--- a/${file}\n+++ b/${file}\n@@ -2,1 +2,1 @@\n-two\n+TWO\n`;
    return { code: 'MT4099', severity: 'error', span: { file, line: 2, col: 1, len: 3, byte_start: 4, byte_end: 7 }, title: 't', prose: 'p', fix: { kind: 'untaint', confidence: 0.9, alternatives: [{ label: 'upper', diff, rationale: 'r', confidence: 0.9 }] }, ...extra };
  }

  test('another tool\'s envelope without schema_version is read as 1.0; fix --apply PATH applies only to PATH; 0.85 is the default threshold', async () => {
    const dir = temp();
    const a = join(dir, 'a.txt');
    const b = join(dir, 'b.txt');
    for (const f of [a, b]) writeFileSync(f, 'one\ntwo\nthree\n');
    const input = [envelopeFor(a), envelopeFor(b)].map((e) => JSON.stringify(e)).join('\n');
    const res = await tapedeckInProcess(['fix', '--apply', a], { input: `${input}\n` });
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('applied MT4099 — upper\nApplied 1 fix (MT4099 ×1)\n');
    // The envelope for another file is counted, not dropped silently.
    expect(res.stderr).toContain(`Skipped 1 envelope(s) for other files than ${a}\n`);
    expect(readFileSync(a, 'utf8')).toBe('one\nTWO\nthree\n');
    expect(readFileSync(b, 'utf8')).toBe('one\ntwo\nthree\n');

    const low = envelopeFor(b, { fix: { kind: 'other', confidence: 0.8, alternatives: [{ ...envelopeFor(b).fix.alternatives[0], confidence: 0.8 }] } });
    const below = await tapedeckInProcess(['fix', '--apply', '--from-stdin'], { input: `${JSON.stringify(low)}\n` });
    expect(below.code).toBe(1);
    expect(below.stderr).toContain('confidence 0.8 is below the threshold 0.85');
    const v2 = await tapedeckInProcess(['fix', '--apply', '--from-stdin'], { input: `${JSON.stringify({ ...envelopeFor(b), schema_version: '2.0' })}\n` });
    expect(v2.code).toBe(2);
  });
});
