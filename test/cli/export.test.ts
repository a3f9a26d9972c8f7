import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { spawnTerminal, readCast } from '../../src/index.js';
import { testBrowser } from '../helpers/browser.js';
import { ROOT, tapedeck, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

const V3 = join(ROOT, 'test/fixtures/casts/v3.cast');

const temp = useTempDirs();

describe('tapedeck export', () => {
  test('v3 → v2 → v3 keeps every event, and the v2 plays in asciinema cat', async () => {
    const dir = temp();
    const v2 = join(dir, 'demo.v2.cast');
    const back = join(dir, 'demo.v3.cast');
    expect((await tapedeck(['export', V3, '--format', 'v2', '--out', v2])).code).toBe(0);
    expect(JSON.parse(readFileSync(v2, 'utf8').split('\n')[0])).toMatchObject({ version: 2, width: 20, height: 4 });
    expect((await tapedeck(['export', v2, '--format', 'v3', '--out', back])).code).toBe(0);
    const original = await readCast(V3);
    const roundTrip = await readCast(back);
    const strip = (events: typeof original.events) => events.map((e) => [Math.round(e.time * 1000), e.code, e.data]);
    expect(strip(roundTrip.events)).toEqual(strip(original.events));
    // asciinema cat reads /dev/tty: run it in a terminal.
    const term = spawnTerminal('asciinema', ['cat', v2], { rows: 6, cols: 30, env: { HOME: dir } });
    try {
      expect((await term.waitForExit()).exitCode).toBe(0);
      expect(await term.text()).toContain('café ✓');
    } finally {
      await term.dispose();
    }
  });

  test('html: a self-contained page whose player plays the cast offline', async () => {
    const dir = temp();
    const out = join(dir, 'demo.html');
    expect((await tapedeck(['export', V3, '--format', 'html', '--out', out])).code).toBe(0);
    const browser = await testBrowser();
    try {
      const context = await browser.newContext({ offline: true });
      const page = await context.newPage();
      await page.goto(`file://${out}`);
      const duration = await page.evaluate(async () => {
        const p = (window as any).tapedeckPlayer;
        await p.play();
        return p.getDuration();
      });
      expect(duration).toBeCloseTo(1.7, 1);
      await page.evaluate(async () => {
        const p = (window as any).tapedeckPlayer;
        await p.pause(); // a playing player moves on from where it was sought to
        await p.seek({ marker: 0 });
      });
      expect(await page.evaluate(() => (window as any).tapedeckPlayer.getCurrentTime())).toBeCloseTo(0.7, 1);
    } finally {
      await browser.close();
    }
  });

  test('webm: a video of the cast through the screenshot renderer', async () => {
    const dir = temp();
    const out = join(dir, 'demo.webm');
    const res = await tapedeck(['export', V3, '--format', 'webm', '--fps', '5', '--out', out, '--json'], { timeoutMs: 60_000 });
    expect(res.code, res.stderr).toBe(0);
    const result = JSON.parse(res.stdout).result;
    expect(result.frames).toBeGreaterThanOrEqual(13); // 1.7 s of tape plus a 1 s hold at 5 fps
    expect(readFileSync(out).subarray(0, 4)).toEqual(Buffer.from([0x1a, 0x45, 0xdf, 0xa3])); // EBML: a WebM file
    const probe = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name,width,height', '-of', 'json', out]).toString();
    const stream = JSON.parse(probe).streams[0];
    expect(stream.codec_name).toBe('vp8');
    expect(stream.width).toBeGreaterThan(100);
    expect(statSync(out).size).toBeGreaterThan(1000);
    // Reproducible (seed 002 §16.3): the same cast and profile give the same bytes.
    const again = join(dir, 'again.webm');
    expect((await tapedeck(['export', V3, '--format', 'webm', '--fps', '5', '--out', again], { timeoutMs: 60_000 })).code).toBe(0);
    expect(readFileSync(again).equals(readFileSync(out))).toBe(true);
  }, 60_000);

  test('bad input: unknown format, malformed cast', async () => {
    const dir = temp();
    const bad = await tapedeckInProcess(['export', V3, '--format', 'jpeg', '--out', join(dir, 'x')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--format must be asciicast, v2, v3, html, svg, gif or webm');
    const broken = join(dir, 'broken.cast');
    writeFileSync(broken, '{"version": 2, "width": 10, "height": 2}\n[0.1, "o"\n');
    const res = await tapedeckInProcess(['export', broken, '--format', 'v3', '--out', join(dir, 'y.cast')]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${broken}:2:`);
  });
});
