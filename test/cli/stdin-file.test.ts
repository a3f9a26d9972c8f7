import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { childEnv, CLI, ROOT, useTempDirs } from '../helpers/cli.js';

/**
 * The bin reads a regular file or /dev/null on stdin itself (cli/file-stdin.ts) instead of
 * through Node's fs.ReadStream, and serve opens stdin only once its tape is read: what a
 * client sends arrives as before, and a run that has no use for Node's fs streams (record
 * `true`, serve of a missing tape) no longer loads them (bench/cli-start.mjs).
 */
const temp = useTempDirs();
const ECHO = ['node', join(ROOT, 'examples/echo-server.mjs')];

/** The built bin with `stdin` (a path) as its fd 0, not a pipe; `preload` is given to node with -r. */
function bin(args: string[], stdin: string, preload?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const fd = openSync(stdin, 'r');
    const child = spawn('node', [...(preload ? ['-r', preload] : []), CLI, ...args], { cwd: ROOT, env: childEnv(), stdio: [fd, 'pipe', 'pipe'] });
    closeSync(fd);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

describe('a file on the bin stdin', () => {
  test('is recorded and served whole, read in several chunks (3,000 requests, over 64 KiB)', async () => {
    const dir = temp();
    const requests = join(dir, 'requests.ndjson');
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'echo', params: { n: i, pad: 'x'.repeat(20) } }));
    writeFileSync(requests, `${lines.join('\n')}\n`);
    expect(readFileSync(requests).length).toBeGreaterThan(3 * 64 * 1024);
    const tape = join(dir, 'echo.ndjson');
    const recorded = await bin(['record', '--out', tape, '--', ...ECHO], requests);
    expect(recorded.code, recorded.stderr).toBe(0);
    const pairs = readFileSync(tape, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { request: string; response: string });
    expect(pairs.map((p) => p.request)).toEqual(lines);
    expect(pairs.map((p) => JSON.parse(p.response).result.n)).toEqual(lines.map((_, i) => i));
    expect(recorded.stdout.trimEnd().split('\n')).toHaveLength(3000);

    const served = await bin(['serve', tape], requests);
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toBe(recorded.stdout);
  });

  test('a pretty-printed JSON body in a file is still told apart as a single-shot request', async () => {
    const dir = temp();
    const body = join(dir, 'req.json');
    writeFileSync(body, `${JSON.stringify({ id: 1, method: 'ping' }, null, 2)}\n`);
    const tape = join(dir, 'shot.ndjson');
    const r = await bin(['record', '--out', tape, '--', 'cat'], body);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(`${tape}.notes`, 'utf8')).toContain('"single_shot":true');
    expect(JSON.parse(readFileSync(tape, 'utf8')).request).toBe(readFileSync(body, 'utf8').trim());
  });

  test('record `true` and serve of a missing tape, stdin /dev/null, load neither Node fs streams nor fs/promises', async () => {
    const dir = temp();
    const list = join(dir, 'builtins.json');
    const preload = join(dir, 'preload.cjs');
    writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, JSON.stringify(process.moduleLoadList)));\n`);
    const loaded = () => JSON.parse(readFileSync(list, 'utf8')) as string[];
    const streams = (names: string[]) => names.filter((n) => /^NativeModule internal\/(fs\/streams|fs\/promises|readline\/interface)$/.test(n));

    const r = await bin(['record', '--out', join(dir, 'true.ndjson'), '--', 'true'], '/dev/null', preload);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'true.ndjson'), 'utf8')).toBe('');
    expect(loaded()).toContain('NativeModule child_process'); // the list is the run's
    expect(streams(loaded())).toEqual([]);

    const s = await bin(['serve', join(dir, 'missing.ndjson')], '/dev/null', preload);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('cannot read: no such file');
    expect(streams(loaded())).toEqual([]);
  });
});
