import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readCast } from '../../src/index.js';
import { CLI, ROOT, run, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

const temp = useTempDirs();

describe('terminal recording keeps what happened', () => {
  test('a program killed by a signal is recorded with the shell status 128+N, so replay checks it', async () => {
    const dir = temp();
    const cast = join(dir, 'killed.cast');
    const rec = await tapedeckInProcess(['record', '--out', cast, '--', 'sh', '-c', 'echo hi; kill -TERM $$']);
    expect(rec.code).toBe(143);
    const { events } = await readCast(cast);
    expect(events.at(-1)).toMatchObject({ code: 'x', data: '143' });
    const replay = await tapedeckInProcess(['replay', cast, '--step-timeout-ms', '500', '--', 'sh', '-c', 'echo hi']);
    expect(replay.code).toBe(1);
  });

  test('a byte-order mark the program writes is output like any other bytes', async () => {
    const dir = temp();
    const cast = join(dir, 'bom.cast');
    await tapedeckInProcess(['record', '--out', cast, '--', 'printf', '\\357\\273\\277A\\357\\273\\277B']);
    const { events } = await readCast(cast);
    const out = Buffer.concat(events.filter((e) => e.code === 'o').map((e) => e.bytes ?? Buffer.from(e.data)));
    expect(out).toEqual(Buffer.from([0xef, 0xbb, 0xbf, 0x41, 0xef, 0xbb, 0xbf, 0x42]));
  });

  test('a tape that cannot be written (file size limit) is exit 2 and leaves nothing behind', async () => {
    const dir = temp();
    const res = await run(['bash', '-c', `ulimit -f 10; node ${CLI} record --out ${join(dir, 'big.cast')} -- seq 1 200000`]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${join(dir, 'big.cast')}: cannot write: EFBIG; the tape was not written`);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('cast tools on bad input', () => {
  test('snapshot of a directory is an IO error naming it', async () => {
    const dir = temp();
    const res = await tapedeckInProcess(['snapshot', dir]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(dir);
    expect(res.stderr).not.toContain('internal error');
  });

  test('a header larger than a terminal can be is exit 2 at line 1', async () => {
    const dir = temp();
    const cast = join(dir, 'huge.cast');
    writeFileSync(cast, '{"version": 2, "width": 20000, "height": 20000}\n[0.1, "o", "x"]\n');
    const res = await tapedeckInProcess(['snapshot', cast]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${cast}:1: asciicast v2 header: width/height must be whole numbers from 1 to 10000`);
  });

  test('export keeps an asciinema tape\'s command and idle time limit', async () => {
    const dir = temp();
    const v2 = join(dir, 'a.cast');
    writeFileSync(v2, '{"version": 2, "width": 20, "height": 4, "command": "bash --norc", "idle_time_limit": 1.5}\n[0.1, "o", "hi"]\n');
    const v3 = join(dir, 'b.cast');
    expect((await tapedeckInProcess(['export', v2, '--format', 'v3', '--out', v3])).code).toBe(0);
    expect(JSON.parse(readFileSync(v3, 'utf8').split('\n')[0])).toMatchObject({ version: 3, command: 'bash --norc', idle_time_limit: 1.5 });
  });

  test('webm export with an ffmpeg that dies is exit 7 at once, with no partial video', async () => {
    const dir = temp();
    const fake = join(dir, 'ffmpeg');
    writeFileSync(fake, '#!/bin/sh\necho "encoder crashed" >&2\nexit 1\n');
    chmodSync(fake, 0o755);
    const out = join(dir, 'x.webm');
    const res = await tapedeckInProcess(['export', join(ROOT, 'test/fixtures/casts/v3.cast'), '--format', 'webm', '--out', out], { env: { TAPEDECK_FFMPEG: fake } });
    expect(res.code).toBe(7);
    expect(res.stderr).toContain('ffmpeg failed (exit 1): encoder crashed');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir)).toEqual(['ffmpeg']);
  });
});
