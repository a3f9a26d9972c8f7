import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI, EVERYTHING_SERVER, ROOT, run, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

/**
 * Issue 30, items 7 and 8: serve paces a response's messages so the SDK client
 * sees every progress notification before the result; --single-shot over a
 * network transport is refused with exit 2.
 */
const temp = useTempDirs();
const WORKLOAD = ['node', join(ROOT, 'test/fixtures/protocol/workload-client.mjs')];

describe('serve --pace', () => {
  test('recorded (the default): the SDK client gets each recorded progress notification before the result', { timeout: 150_000 }, async () => {
    const tape = join(temp(), 'workload.ndjson');
    const rec = await run([...WORKLOAD, '--', 'node', CLI, 'record', '--out', tape, '--', ...EVERYTHING_SERVER]);
    expect(rec.code, rec.stderr).toBe(0);
    const long = readFileSync(tape, 'utf8').split('\n').find((l) => l.includes('"steps\\":3'))!;
    const recorded = long.split('notifications/progress').length - 1;
    expect(recorded).toBe(3);
    for (const args of [[], ['--pace', 'recorded']]) {
      const served = await run([...WORKLOAD, '--', 'node', CLI, 'serve', tape, ...args]);
      expect(served.code, served.stderr).toBe(0);
      const progress = served.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.kind === 'progress');
      expect(progress.value).toEqual([1, 2, 3].map((p) => ({ progress: p, total: 3 })));
    }
    const bad = await tapedeckInProcess(['serve', tape, '--pace', 'fast']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--pace must be recorded or none, got "fast"');
  });
});

describe('refused at the start', () => {
  test('--single-shot with --transport http or unix is exit 2', async () => {
    const tape = join(temp(), 't.ndjson');
    writeFileSync(tape, '{"request":"{\\"op\\":\\"ping\\"}","response":""}\n');
    for (const transport of ['http', 'unix']) {
      const res = await tapedeckInProcess(['replay', tape, '--single-shot', '--transport', transport, '--', 'cat']);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain(`--single-shot starts a fresh server per pair and talks to it over stdio; it does not apply to --transport ${transport}`);
    }
  });
});
