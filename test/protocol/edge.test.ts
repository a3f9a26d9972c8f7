import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { applyEnvelopes, type DiagnosticEnvelope } from '../../src/index.js';
import { CLI, ROOT, run, tapedeck, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

const temp = useTempDirs();
const fixture = (name: string) => ['node', join(ROOT, 'test/fixtures', name)];

describe('protocol edge cases', () => {
  test('a server under a wrapper that hangs is stopped with its whole process group: drift, not a hang', async () => {
    const dir = temp();
    const tape = join(dir, 't.ndjson');
    writeFileSync(tape, `${JSON.stringify({ request: '{"op":"x"}', response: '{"kind":"done","exit_code":0}\n' })}\n`);
    const marker = `tapedeck-wrapped-${process.pid}`;
    const started = Date.now();
    // The bin, so the test's own guard can kill a hang (a call in this process could only wait).
    const res = await tapedeck(['replay', tape, '--timeout-ms', '500', '--', 'bash', '-c', `exec -a ${marker} sleep 1000 & node -e "process.stdin.resume()"; true`], { timeoutMs: 20_000 });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('no complete response within 500 ms [TD1002]');
    expect(Date.now() - started).toBeLessThan(30_000); // a hang guard: without the group kill, sleep 1000 would hold the pipe open
    const left = execFileSync('ps', ['-eo', 'args']).toString().split('\n').filter((l) => l.startsWith(marker));
    expect(left).toEqual([]);
  });

  test('idle framing keeps a prompt without a newline with the answer it ends, on record and replay', async () => {
    const dir = temp();
    const tape = join(dir, 'prompt.ndjson');
    // The client waits for each answer, as a person would: the framing is then never a race.
    const rec = await run(['node', join(ROOT, 'test/fixtures/paced-client.mjs'), '400', 'one', 'two', '--', 'node', CLI, 'record', '--out', tape, '--boundary', 'idle:150', '--', ...fixture('prompt-server.mjs')]);
    expect(rec.code).toBe(0);
    const pairs = readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(pairs.map((p) => p.response)).toEqual(['> echo: one\n> ', 'echo: two\n> ']);
    for (let i = 0; i < 3; i++) {
      const replay = await tapedeckInProcess(['replay', tape, '--boundary', 'idle:150', '--', ...fixture('prompt-server.mjs')]);
      expect(replay.stderr).toContain('0 drift(s)');
      expect(replay.code).toBe(0);
    }
  });

  test('a JSON-RPC batch is one exchange: recorded with its response array, replayed and served', async () => {
    const dir = temp();
    const tape = join(dir, 'batch.ndjson');
    const batch = JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'a' }, { jsonrpc: '2.0', method: 'note' }, { jsonrpc: '2.0', id: 2, method: 'b' }]);
    const single = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'c' });
    const rec = await run(['bash', '-c', `(echo '${batch}'; sleep 0.3; echo '${single}'; sleep 0.3) | node ${CLI} record --out ${tape} -- ${fixture('batch-server.mjs').join(' ')}`]);
    expect(rec.code).toBe(0);
    const pairs = readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(pairs).toHaveLength(2);
    expect(JSON.parse(pairs[0].response).map((r: { id: number }) => r.id)).toEqual([1, 2]);
    expect(JSON.parse(pairs[1].response).id).toBe(3);
    expect((await tapedeckInProcess(['replay', tape, '--', ...fixture('batch-server.mjs')])).code).toBe(0);
    const served = await tapedeckInProcess(['serve', tape], { input: `${batch}\n${single}\n` });
    expect(served.code).toBe(0);
    expect(served.stdout).toBe(pairs[0].response + pairs[1].response);
    const unknown = await tapedeckInProcess(['serve', tape, '--allow-unused'], { input: `${JSON.stringify([{ jsonrpc: '2.0', id: 9, method: 'zzz' }])}\n` });
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout)).toEqual([{ jsonrpc: '2.0', id: 9, error: { code: -32601, message: 'tapedeck serve: no recorded response for this request' } }]);
  });

  test('a redacted variable missing from the environment is exit 2 before any server starts', async () => {
    const dir = temp();
    const good = join(dir, 'a.ndjson');
    const needsSecret = join(dir, 'b.ndjson');
    writeFileSync(good, `${JSON.stringify({ request: '{"op":"x"}', response: '{"kind":"done","exit_code":0}\n' })}\n`);
    writeFileSync(needsSecret, `${JSON.stringify({ request: '{"op":"x","token":"{{tapedeck.env.NO_SUCH_SECRET}}"}', response: '{"kind":"done","exit_code":0}\n' })}\n`);
    const log = join(dir, 'started.log');
    const res = await tapedeckInProcess(['replay', good, needsSecret, '--jobs', '1', '--', 'bash', '-c', `echo started >> ${log}; cat >/dev/null`], { env: { NO_SUCH_SECRET: undefined } });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${needsSecret}:1: the tape has a redacted value for NO_SUCH_SECRET`);
    expect(() => readFileSync(log)).toThrow();
  });

  test('drift reports and envelopes show secrets as placeholders, never in clear', async () => {
    const dir = temp();
    const tape = join(dir, 'secret.ndjson');
    const server = fixture('secret-server.mjs');
    const secret = 'sk-live-9e8d7c6b5a';
    await tapedeckInProcess(['record', '--out', tape, '--redact-env', 'API_TOKEN', '--', ...server], { input: '{"op":"whoami"}\n', env: { API_TOKEN: secret } });
    // A changed server: the op is answered with another field, so the pair drifts while carrying the secret.
    const changed = join(dir, 'changed.mjs');
    writeFileSync(changed, readFileSync(join(ROOT, 'test/fixtures/secret-server.mjs'), 'utf8').replace('ok: true', 'ok: false'));
    const res = await tapedeckInProcess(['replay', tape, '--json', '--report', join(dir, 'r.html'), '--', 'node', changed], { env: { API_TOKEN: secret } });
    expect(res.code).toBe(1);
    expect(res.stdout).toContain('{{tapedeck.env.API_TOKEN}}');
    for (const text of [res.stdout, res.stderr, readFileSync(join(dir, 'r.html'), 'utf8')]) expect(text).not.toContain(secret);
  });

  test('serve: a client that hangs up early is no crash', async () => {
    const dir = temp();
    const tape = join(dir, 't.ndjson');
    const big = 'x'.repeat(100_000);
    writeFileSync(tape, `${JSON.stringify({ request: 'a', response: `${big}\n` })}\n`);
    const res = await run(['bash', '-c', `yes a | head -n 200 | node ${CLI} serve ${tape} | head -c 10 >/dev/null; echo "status \${PIPESTATUS[2]}"`]);
    expect(res.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(res.stdout).toMatch(/status [01]/);
  });
});

describe('fix --apply rules', () => {
  const envelope = (file: string, diff: string): DiagnosticEnvelope => ({
    schema_version: '1.0', code: 'TD1001', severity: 'error', span: { file, line: 1, col: 1, len: 1, byte_start: 0, byte_end: 1 }, title: 't', prose: 'p',
    fix: { kind: 'update_golden', confidence: 0.6, alternatives: [{ label: 'l', diff, rationale: 'r', confidence: 0.6 }] },
  });

  test('an envelope with one stale hunk changes nothing; duplicate hunks count as applied', () => {
    const dir = temp();
    const file = join(dir, 'f.txt');
    writeFileSync(file, 'a\nb\nc\nd\n');
    const halfStale = envelope(file, `--- a/f\n+++ b/${file}\n@@ -1,1 +1,1 @@\n-X\n+A\n@@ -4,1 +4,1 @@\n-d\n+D\n`);
    const [outcome] = applyEnvelopes([halfStale], { threshold: 0 });
    expect(outcome.applied).toBe(false);
    expect(outcome.reason).toContain('stale diff');
    expect(readFileSync(file, 'utf8')).toBe('a\nb\nc\nd\n');
    const same = `--- a/f\n+++ b/${file}\n@@ -2,1 +2,1 @@\n-b\n+B\n`;
    const outcomes = applyEnvelopes([envelope(file, same), envelope(file, same)], { threshold: 0 });
    expect(outcomes.map((o) => o.applied)).toEqual([true, true]);
    expect(readFileSync(file, 'utf8')).toBe('a\nB\nc\nd\n');
  });
});

describe('bytes that are not UTF-8', () => {
  test('are recorded exactly, a change in them is drift, and --update keeps the new bytes exactly', async () => {
    const dir = temp();
    const tape = join(dir, 'bytes.ndjson');
    const server = fixture('bytes-server.mjs');
    expect((await tapedeckInProcess(['record', '--out', tape, '--', ...server], { input: '{"op":"x"}\n' })).code).toBe(0);
    const stored = JSON.parse(readFileSync(tape, 'utf8'));
    const bytesOf = (line: { response_base64: string }) => {
      const b = Buffer.from(line.response_base64, 'base64');
      return b.subarray(b.indexOf(0xff), b.indexOf(0xff) + 3);
    };
    expect(bytesOf(stored)).toEqual(Buffer.from([0xff, 0xfe, 0x41]));
    expect((await tapedeckInProcess(['replay', tape, '--', ...server])).code).toBe(0);
    const changed = await tapedeckInProcess(['replay', tape, '--', ...server], { env: { BYTE: String(0x42) } });
    expect(changed.code).toBe(1);
    expect((await tapedeckInProcess(['replay', tape, '--update', '--', ...server], { env: { BYTE: String(0x42) } })).code).toBe(0);
    const updated = JSON.parse(readFileSync(tape, 'utf8'));
    expect(bytesOf(updated)).toEqual(Buffer.from([0xff, 0xfe, 0x42]));
    expect((await tapedeckInProcess(['replay', tape, '--', ...server], { env: { BYTE: String(0x42) } })).code).toBe(0);
  });
});
