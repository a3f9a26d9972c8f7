import { chmodSync, copyFileSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { runs } from '../helpers/soak.js';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { replayProtocolTape, Normaliser } from '../../src/index.js';
import { AGENT_SERVER, EVERYTHING_SERVER, ROOT, tapedeck, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

const AGENT_GOLDEN = join(ROOT, 'goldens/agent-server.ndjson');
const MCP_GOLDEN = join(ROOT, 'goldens/mcp-everything.ndjson');
const RACY = ['node', join(ROOT, 'test/fixtures/racy-server.mjs')];

const temp = useTempDirs();

/** A copy of the example server with one source change: a "changed server" as a real program. */
function changedAgentServer(dir: string, from: string, to: string): string[] {
  const path = join(dir, 'agent-server.mjs');
  const source = readFileSync(join(ROOT, 'examples/agent-server.mjs'), 'utf8');
  expect(source).toContain(from);
  writeFileSync(path, source.split(from).join(to));
  mkdirSync(join(dir, 'project'), { recursive: true });
  for (const f of ['main.mty', 'clean.mty']) copyFileSync(join(ROOT, 'examples/project', f), join(dir, 'project', f));
  return ['node', path];
}

describe('tapedeck replay (protocol)', () => {
  test('the checked-in goldens replay clean against the example servers', async () => {
    const agent = await tapedeck(['replay', AGENT_GOLDEN, '--', ...AGENT_SERVER]);
    expect(agent.stderr).toContain('0 drift(s)');
    expect(agent.code).toBe(0);
    const mcp = await tapedeckInProcess(['replay', MCP_GOLDEN, '--', ...EVERYTHING_SERVER]);
    expect(mcp.stderr).toContain('10 pair(s), 0 drift(s)');
    expect(mcp.code).toBe(0);
  });

  const MCP_RUNS = runs(2, 20);
  test(`the MCP tape replays clean ${MCP_RUNS} times out of ${MCP_RUNS}`, async () => {
    const tapes = Array.from({ length: MCP_RUNS }, () => MCP_GOLDEN);
    // One process, MCP_RUNS tapes, each against its own fresh server.
    const dir = temp();
    const copies = tapes.map((t, i) => {
      const p = join(dir, `mcp-${String(i).padStart(2, '0')}.ndjson`);
      copyFileSync(t, p);
      return p;
    });
    const res = await tapedeckInProcess(['replay', ...copies, '--json', '--', ...EVERYTHING_SERVER]);
    expect(res.stdout).toBe(''); // --json stdout carries envelopes only; the summary is on stderr
    const summary = JSON.parse(res.stderr.split('\n').find((l) => l.startsWith('{"kind":"summary"'))!);
    expect(summary).toMatchObject({ kind: 'summary', tapes: MCP_RUNS, pairs: 10 * MCP_RUNS, drifts: 0, exit_code: 0 });
    expect(res.code).toBe(0);
  }, 120_000);

  test('a changed server is drift: exit 1, with the JSON paths that differ', async () => {
    const dir = temp();
    const server = changedAgentServer(dir, "const VERSION = '0.35.0';\n", '');
    const changed = changedAgentServer(dir, 'Routes the value through a typed sanitizer.', 'Routes the value through a sanitizer.');
    void server;
    // A copy: a drifted replay leaves <tape>.new beside the tape it replayed.
    const tape = join(dir, 'agent-server.ndjson');
    copyFileSync(AGENT_GOLDEN, tape);
    const res = await tapedeckInProcess(['replay', tape, '--', ...changed], { env: { AGENT_SERVER_ROOT: join(dir, 'project') } });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`${tape}:1: pair 1: response drifted [TD1001]`);
    expect(res.stderr).toContain('request: {"op":"check","path":"main.mty","include_source":true}');
    expect(res.stderr).toContain(
      'message 4: $.fix.alternatives[0].rationale: expected "Routes the value through a typed sanitizer.", got "Routes the value through a sanitizer."',
    );
    expect(res.stderr).toContain('1 drift(s) in 1 tape(s)');
  });

  test('--json prints seed-001 envelopes with a fix that accepts the live response, then a summary', async () => {
    const dir = temp();
    const tape = join(dir, 'agent.ndjson');
    copyFileSync(AGENT_GOLDEN, tape);
    const changed = changedAgentServer(dir, "ok: true, code: req.code, text }", "ok: true, code: req.code, text, lang: 'en' }");
    const res = await tapedeckInProcess(['replay', tape, '--json', '--json-summary', '--', ...changed]);
    expect(res.code).toBe(1);
    const [envelope, summary, ...rest] = res.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(rest).toEqual([]);
    expect(envelope).toMatchObject({
      schema_version: '1.0',
      code: 'TD1001',
      severity: 'error',
      span: { file: tape, line: 3, col: 1 },
      title: 'response drifted',
      fix: { kind: 'other' },
      see_also: ['TD1004', 'TD1005', 'docs/formats.md#diagnostic-envelopes'],
    });
    const original = readFileSync(tape, 'utf8');
    const line3 = original.split('\n')[2];
    expect(envelope.span.byte_start).toBe(original.indexOf(line3));
    expect(envelope.span.byte_end - envelope.span.byte_start).toBe(Buffer.byteLength(line3));
    expect(envelope.prose).toContain('$.lang: unexpected "en" (not in the tape)');
    const diff: string = envelope.fix.alternatives[0].diff;
    expect(diff.split('\n').slice(0, 4)).toEqual([`--- a/${tape}`, `+++ b/${tape}`, '@@ -3,1 +3,1 @@', `-${line3}`]);
    expect(JSON.parse(diff.split('\n')[4].slice(1)).response).toContain('"lang":"en"');
    expect(summary).toMatchObject({ kind: 'summary', tapes: 1, pairs: 7, drifts: 1, exit_code: 1 });

    const explain = await tapedeckInProcess(['explain', 'TD1001']);
    expect(explain.code).toBe(0);
    expect(explain.stdout).toContain('TD1001: response drifted');
    expect(explain.stdout).toContain('--ignore JSONPATH');
  });

  test('--update rewrites only the drifted pair, atomically, and the tape is clean afterwards', async () => {
    const dir = temp();
    const tape = join(dir, 'agent.ndjson');
    copyFileSync(AGENT_GOLDEN, tape);
    chmodSync(tape, 0o640);
    const before = readFileSync(tape, 'utf8').split('\n');
    const changed = changedAgentServer(dir, "would_reformat: wouldReformat }", "would_reformat: wouldReformat, style: 'k&r' }");
    const upd = await tapedeckInProcess(['replay', tape, '--update', '--', ...changed], { env: { AGENT_SERVER_ROOT: join(ROOT, 'examples/project') } });
    expect(upd.code).toBe(0);
    expect(upd.stderr).toContain('rewrote 1 pair(s)');
    const after = readFileSync(tape, 'utf8').split('\n');
    expect(after.length).toBe(before.length);
    after.forEach((line, i) => {
      if (i === 3) expect(line).toContain('\\"style\\":\\"k&r\\"');
      else expect(line).toBe(before[i]);
    });
    const again = await tapedeckInProcess(['replay', tape, '--', ...changed]);
    expect(again.code).toBe(0);
    const original = await tapedeckInProcess(['replay', tape, '--', ...AGENT_SERVER]);
    expect(original.code).toBe(1);
    expect(readFileSync(tape).length).toBeGreaterThan(0);
  });

  test('malformed tapes exit 2 naming file:line and what is wrong, and start no server', async () => {
    const dir = temp();
    const cases: Array<[string, string]> = [
      ['{"request":"{}","response":"x"}\n{"request": "a", "response": 3}\n', ':2: not a valid tape pair: "response" must be a string, got a number'],
      ['{"request":"{}","response":"x"}\n\n{"request":"a"\n', ':3: not a valid tape pair: invalid JSON'],
      ['{"response":"x"}\n', ':1: not a valid tape pair: missing "request"'],
      ['["request","response"]\n', ':1: not a valid tape pair: expected a JSON object'],
    ];
    for (const [i, [content, message]] of cases.entries()) {
      const tape = join(dir, `bad${i}.ndjson`);
      writeFileSync(tape, content);
      const marker = join(dir, `started${i}`);
      const res = await tapedeckInProcess(['replay', tape, '--', 'bash', '-c', `touch ${marker}; cat`]);
      expect(res.code, content).toBe(2);
      expect(res.stderr).toContain(`${tape}${message}`);
      expect(res.stderr).not.toMatch(/\n\s+at /);
      expect(() => readFileSync(marker)).toThrow();
    }
    const missing = await tapedeckInProcess(['replay', join(dir, 'nope.ndjson'), '--', 'cat']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`${join(dir, 'nope.ndjson')}: cannot read: no such file`);
    const noCmd = await tapedeckInProcess(['replay', AGENT_GOLDEN, '--', '/no/such/server']);
    expect(noCmd.code).toBe(2);
    expect(noCmd.stderr).toContain('cannot start /no/such/server: command not found');
  });

  test('a server that crashes mid-tape is drift with its exit status and the tail of its stderr', async () => {
    const res = await tapedeckInProcess(['replay', AGENT_GOLDEN, '--', ...AGENT_SERVER], { env: { AGENT_SERVER_CRASH_ON: 'fmt' } });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(':4: pair 4: server exited (exit code 3) before completing this response [TD1003]');
    expect(res.stderr).toContain('3 later pair(s) not replayed');
    expect(res.stderr).toContain('agent-server: panic while handling fmt: index out of bounds');
  });

  test('a server that hangs is drift after --timeout-ms, never a hang', async () => {
    // The first response includes the server's start, which a loaded machine can stretch past a second; tapedeck()
    // kills the run (failing the test) if it hangs.
    const res = await tapedeck(['replay', AGENT_GOLDEN, '--timeout-ms', '3000', '--', ...AGENT_SERVER], { env: { AGENT_SERVER_HANG_ON: 'explain' } });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(':3: pair 3: no complete response within 3000 ms [TD1002]');
    expect(res.stderr).toContain('received so far: (nothing)');
  });

  test('a notification racing its response is not drift; a changed or extra notification is', async () => {
    const dir = temp();
    const tape = join(dir, 'racy.ndjson');
    const script = Array.from({ length: 8 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: `tools/op${i}` })).join('\n');
    const rec = await tapedeckInProcess(['record', '--out', tape, '--', ...RACY], { input: `${script}\n` });
    expect(rec.code).toBe(0);
    const ignoreTime = ['--ignore', '$.result.at'];
    for (let i = 0; i < runs(2, 5); i++) {
      const res = await tapedeckInProcess(['replay', tape, ...ignoreTime, '--', ...RACY]);
      expect(res.stderr).toContain('0 drift(s)');
      expect(res.code).toBe(0);
    }
    const changed = await tapedeckInProcess(['replay', tape, ...ignoreTime, '--', ...RACY], { env: { RACY_NOTE: 'processed' } });
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain('server message drifted (notifications/message)');
    expect(changed.stderr).toMatch(/\$\.params\.data: expected "handled tools\/op\d", got "processed tools\/op\d"/);
    const extra = await tapedeckInProcess(['replay', tape, ...ignoreTime, '--', ...RACY], { env: { RACY_EXTRA: '1' } });
    expect(extra.code).toBe(1);
    expect(extra.stderr).toContain('unexpected server message (notifications/extra) [TD1005]');
    // Without the normaliser, the timestamp is real drift.
    const strict = await tapedeckInProcess(['replay', tape, '--', ...RACY]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/\$\.result\.at: expected "\d{4}-/);
  });

  test('normalisers: --ignore, --filter and tapedeck.config.json apply to both sides, never to the tape', async () => {
    const dir = temp();
    const tape = join(dir, 'agent.ndjson');
    copyFileSync(AGENT_GOLDEN, tape);
    const before = readFileSync(tape, 'utf8');
    const changed = changedAgentServer(dir, "op: 'explain', ok: true", "op: 'explain', ok: true, took_ms: Math.random()");
    const strict = await tapedeckInProcess(['replay', tape, '--', ...changed]);
    expect(strict.code).toBe(1);
    expect((await tapedeckInProcess(['replay', tape, '--ignore', '$.took_ms', '--', ...changed])).code).toBe(1); // absent on one side: still a change
    const filtered = await tapedeckInProcess(['replay', tape, '--filter', ',"took_ms":[0-9.e-]+=', '--', ...changed]);
    expect(filtered.stderr).toContain('0 drift(s)');
    expect(filtered.code).toBe(0);
    writeFileSync(join(dir, 'tapedeck.config.json'), JSON.stringify({ filter: [{ pattern: ',"took_ms":[0-9.e-]+', replacement: '' }] }, null, 2));
    const fromConfig = await tapedeckInProcess(['replay', tape, '--', ...changed], { cwd: dir });
    expect(fromConfig.code).toBe(0);
    expect(readFileSync(tape, 'utf8')).toBe(before);

    writeFileSync(join(dir, 'tapedeck.config.json'), '{\n  "ignore": ["$.a"],\n  "filter": [42]\n}\n');
    const bad = await tapedeckInProcess(['replay', tape, '--', ...changed], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('tapedeck.config.json:3: "filter" entries must be strings or objects');
    const badPath = await tapedeckInProcess(['replay', tape, '--ignore', 'result.version', '--', ...changed]);
    expect(badPath.code).toBe(2);
    expect(badPath.stderr).toContain('--ignore expects a JSONPath starting with $');
  });

  test('several tapes by glob, each with its own server, and --shard splits them', async () => {
    const dir = temp();
    for (const name of ['a', 'b', 'c']) copyFileSync(AGENT_GOLDEN, join(dir, `${name}.ndjson`));
    const all = await tapedeckInProcess(['replay', join(dir, '*.ndjson'), '--json', '--json-summary', '--', ...AGENT_SERVER]);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout.trim())).toMatchObject({ tapes: 3, pairs: 21, drifts: 0 });
    const shard1 = await tapedeckInProcess(['replay', join(dir, '*.ndjson'), '--shard', '1/2', '--', ...AGENT_SERVER]);
    const shard2 = await tapedeckInProcess(['replay', join(dir, '*.ndjson'), '--shard', '2/2', '--', ...AGENT_SERVER]);
    expect(shard1.stderr).toContain('a.ndjson');
    expect(shard1.stderr).toContain('c.ndjson');
    expect(shard1.stderr).not.toContain('b.ndjson');
    expect(shard2.stderr).toContain('b.ndjson');
    expect(shard2.stderr).toContain('1 tape(s)');
    const none = await tapedeckInProcess(['replay', join(dir, '*.jsonl'), '--', ...AGENT_SERVER]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no tape matches');
  });

  test('library: replayProtocolTape returns typed pairs and drifts', async () => {
    const dir = temp();
    const changed = changedAgentServer(dir, "agent_protocol: '1.0'", "agent_protocol: '1.1'");
    const clean = await replayProtocolTape(AGENT_GOLDEN, { command: AGENT_SERVER });
    expect(clean.drifts).toEqual([]);
    expect(clean.pairs.map((p) => p.status)).toEqual(Array(7).fill('ok'));
    const tape = join(dir, 'v.ndjson');
    writeFileSync(tape, `${JSON.stringify({ request: '{"op":"version"}', response: '{"kind":"result","op":"version","ok":true,"mty_version":"9.9.9","agent_protocol":"1.0"}\n{"kind":"done","exit_code":0}\n' })}\n`);
    const res = await replayProtocolTape(tape, { command: changed, normaliser: new Normaliser({ ignore: ['$.mty_version'] }) });
    expect(res.drifts).toHaveLength(1);
    expect(res.drifts[0]).toMatchObject({ code: 'TD1001', pair: 1, line: 1, details: ['message 1: $.agent_protocol: expected "1.0", got "1.1"'] });
    expect(res.pairs[0].status).toBe('drifted');
  });
});
