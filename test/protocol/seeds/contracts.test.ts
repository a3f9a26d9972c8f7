import { connect } from 'node:net';
import { copyFileSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { AGENT_SERVER, ROOT, tapedeck, tapedeckInProcess, useTempDirs } from '../../helpers/cli.js';
import { startTapedeck } from '../../helpers/net.js';

const temp = useTempDirs();
const DRIFTED = join(ROOT, 'test/fixtures/agent/drifted.ndjson');
const GOLDEN = join(ROOT, 'goldens/agent-server.ndjson');

describe("mty's flag spellings and connection handling (seed 000)", () => {
  test('serve --transport http --port N listens on 127.0.0.1:N and closes each connection after its response', async () => {
    const srv = await startTapedeck(['serve', GOLDEN, '--transport', 'http', '--port', '0', '--allow-unused']);
    expect(srv.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await new Promise<{ connection?: string; body: string; closed: boolean }>((resolve, reject) => {
      const req = request(`${srv.address}/v1/agent`, { method: 'POST' }, (r) => {
        let body = '';
        r.on('data', (c: Buffer) => (body += c.toString()));
        r.on('end', () => resolve({ connection: r.headers.connection, body, closed: req.socket?.destroyed ?? true }));
      });
      req.on('error', reject);
      req.end('{"op":"explain","code":"MT4099"}');
    });
    expect(res.connection).toBe('close');
    expect(res.body).toContain('"op":"explain"');
    expect((await srv.stop()).code).toBe(0);
  });

  test('record --transport unix --socket PATH; the aliases of the other transport are usage errors', async () => {
    const dir = temp();
    const path = join(dir, 'rec.sock');
    const tape = join(dir, 'u.ndjson');
    const rec = await startTapedeck(['record', '--out', tape, '--transport', 'unix', '--socket', path, '--', ...AGENT_SERVER, '--transport', 'unix', '--listen', '{{socket}}']);
    expect(rec.address).toBe(`unix:${path}`);
    await new Promise<void>((resolve) => {
      const s = connect(path);
      s.on('data', (c: Buffer) => c.toString().includes('"kind":"done"') && s.end());
      s.on('close', () => resolve());
      s.write('{"op":"explain","code":"MT4099"}\n');
    });
    await rec.stop();
    expect(JSON.parse(readFileSync(tape, 'utf8').trim()).request).toBe('{"op":"explain","code":"MT4099"}');
    const wrong = await tapedeckInProcess(['serve', GOLDEN, '--transport', 'http', '--socket', join(dir, 'x.sock')]);
    expect(wrong.stderr).toContain('serve: --socket applies to --transport unix');
    expect(wrong.code).toBe(2);
    const port = await tapedeckInProcess(['serve', GOLDEN, '--transport', 'http', '--port', 'http']);
    expect(port.stderr).toContain('serve: --port expects a port number from 0 to 65535, got "http"');
    expect(port.code).toBe(2);
  });
});

describe("seed 001's envelopes and fix loop", () => {
  test('replay --json --include-source: source{start_line, lines[]} around the tape line; see_also holds codes and doc paths', async () => {
    const dir = temp();
    const tape = join(dir, 'd.ndjson');
    copyFileSync(DRIFTED, tape);
    const res = await tapedeckInProcess(['replay', tape, '--json', '--include-source', '--', ...AGENT_SERVER], { env: { CI: 'true' } });
    expect(res.code).toBe(1);
    const [env] = res.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const text = readFileSync(tape, 'utf8').split('\n');
    expect(env.span.line).toBe(4);
    expect(env.source).toEqual({ start_line: 3, lines: text.slice(2, 5) });
    expect(env.see_also).toEqual(['TD1004', 'TD1005', 'docs/formats.md#diagnostic-envelopes']);
    const plain = await tapedeckInProcess(['replay', tape, '--include-source', '--', ...AGENT_SERVER], { env: { CI: 'true' } });
    expect(plain.stderr).toContain('replay: --include-source goes with --json');
    expect(plain.code).toBe(2);
  });

  test('fix --apply TAPE -- CMD re-checks the tape (replays it now) and applies what it finds; the zero-shot loop names --accept-drift', async () => {
    const dir = temp();
    const tape = join(dir, 'd.ndjson');
    copyFileSync(DRIFTED, tape);
    const loop = await tapedeckInProcess(['fix', '--apply', tape, '--', ...AGENT_SERVER], { env: { CI: 'true' } });
    expect(loop.code).toBe(1); // seed 001: what was not applied is tallied, exit 1
    expect(loop.stderr).toContain("1 of them accept drift (tapedeck's own fixes, confidence 0.6): add --accept-drift to apply them\n");
    expect(readFileSync(tape, 'utf8')).toBe(readFileSync(DRIFTED, 'utf8'));
    const fixed = await tapedeckInProcess(['fix', '--apply', tape, '--accept-drift', '--', ...AGENT_SERVER], { env: { CI: 'true' } });
    expect(fixed.stderr).toContain('applied TD1001 — accept the live response\nApplied 1 fix (TD1001 ×1)\n');
    expect(fixed.code).toBe(0);
    expect(readFileSync(tape, 'utf8')).toBe(readFileSync(GOLDEN, 'utf8'));
    // Re-checked again: nothing left to apply.
    const again = await tapedeckInProcess(['fix', '--apply', tape, '--', ...AGENT_SERVER], { env: { CI: 'true' } });
    expect(again.stderr).toContain('0 drift(s)'); // the re-check's own summary
    expect(again.stderr.endsWith('Applied 0 fixes\n')).toBe(true);
    expect(again.code).toBe(0);
  });
});

describe('--json failures are envelopes (seed 002 §1.3)', () => {
  test('snapshot, export, explain and replay of a missing file: one failure envelope on stdout, the line on stderr, exit 2', async () => {
    const runs: Array<[string[], string, string]> = [
      [['snapshot', '/nope/missing.cast', '--json'], 'snapshot', 'STORAGE_READ_ERROR'],
      [['export', '/nope/missing.cast', '--format', 'html', '--out', join(temp(), 'x.html'), '--json'], 'export', 'STORAGE_READ_ERROR'],
      [['explain', 'TD9999', '--json'], 'explain', 'INVALID_INPUT'],
      [['replay', '/nope/missing.ndjson', '--json', '--', ...AGENT_SERVER], 'replay', 'STORAGE_READ_ERROR'],
    ];
    for (const [argv, command, code] of runs) {
      const res = await tapedeckInProcess(argv);
      expect(res.code, argv.join(' ')).toBe(2);
      const out = res.stdout.trim().split('\n');
      expect(out, argv.join(' ')).toHaveLength(1);
      expect(JSON.parse(out[0])).toMatchObject({ ok: false, command, error: { code, retryable: false } });
      expect(res.stderr).toMatch(/^tapedeck: /);
    }
    // Without --json: nothing on stdout.
    expect((await tapedeckInProcess(['snapshot', '/nope/missing.cast'])).stdout).toBe('');
  });
});

describe('smaller seed contracts', () => {
  test("a request's leading byte order mark is kept as seed 000's trim keeps it (Unicode White_Space only)", async () => {
    const tape = join(temp(), 'bom.ndjson');
    const res = await tapedeck(['record', '--out', tape, '--', ...AGENT_SERVER], { input: '\uFEFF{"op":"explain","code":"MT4099"}  \n' });
    expect(res.code).toBe(0);
    expect(JSON.parse(readFileSync(tape, 'utf8').split('\n')[0]).request).toBe('\uFEFF{"op":"explain","code":"MT4099"}');
  });

  test('an unknown render profile in the environment is exit 2 naming the variable, not ignored', async () => {
    const res = await tapedeck(['screenshot', join(ROOT, 'goldens/terminal/bash-echo.cast'), '--out', join(temp(), 's.png')], { env: { TAPEDECK_PROFILE: 'neon' } });
    expect(res.stderr).toContain('unknown render profile "neon" in TAPEDECK_PROFILE');
    expect(res.code).toBe(2);
  });
});
