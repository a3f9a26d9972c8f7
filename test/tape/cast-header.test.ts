import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pngjs from 'pngjs';
import { testBrowser } from '../helpers/browser.js';
import { tapedeckInProcess, tempDir } from '../helpers/cli.js';

/**
 * What a cast's header and markers carry through tapedeck: markers with an
 * empty label (asciinema's marker key) addressed by index, the recording
 * terminal's theme in screenshots, and term.theme / term.version / tags kept
 * by export. Also: screenshots lay emoji out in two cells, like the screen.
 */
const { PNG } = pngjs;
const { dir, cleanup } = tempDir('tapedeck-cast-header-');
afterAll(cleanup);

const THEME = { fg: '#d0d0d0', bg: '#203040', palette: '#000000:#aa0000:#00aa00:#aa5500:#0000aa:#aa00aa:#00aaaa:#aaaaaa' };

function castFile(name: string, header: Record<string, unknown>, events: unknown[][]): string {
  const path = join(dir, name);
  writeFileSync(path, [JSON.stringify(header), ...events.map((e) => JSON.stringify(e))].join('\n') + '\n');
  return path;
}

const themed = () =>
  castFile('themed.cast', { version: 3, term: { cols: 20, rows: 3, type: 'xterm-256color', version: 'asciinema 3.0', theme: THEME }, timestamp: 1700000000, tags: ['demo', 'emoji'] }, [
    [0.1, 'o', 'first 😀'],
    [0.1, 'm', ''],
    [0.1, 'o', '\r\nsecond'],
    [0.1, 'm', ''],
    [0.1, 'o', '\r\nthird'],
    [0.1, 'm', 'named'],
  ]);

/** RGB of a pixel as "#rrggbb". */
function pixel(png: InstanceType<typeof PNG>, x: number, y: number): string {
  const i = (png.width * y + x) * 4;
  return `#${[0, 1, 2].map((k) => png.data[i + k].toString(16).padStart(2, '0')).join('')}`;
}

describe('markers with empty labels', () => {
  it('are addressed as #N (1-based) by snapshot and screenshot', async () => {
    const cast = themed();
    const [first, second, named, missing] = await Promise.all([
      tapedeckInProcess(['snapshot', cast, '--at', '#1']),
      tapedeckInProcess(['snapshot', cast, '--at', '#2']),
      tapedeckInProcess(['snapshot', cast, '--at', '#3']),
      tapedeckInProcess(['snapshot', cast, '--at', '#4']),
    ]);
    expect(first.stdout).toContain('first 😀');
    expect(first.stdout).not.toContain('second');
    expect(second.stdout).toContain('second');
    expect(second.stdout).not.toContain('third');
    expect(named.stdout).toContain('third');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no marker #4 (markers in the tape: #1 "", #2 "", #3 "named")');
  });
});

describe('the cast theme and header', () => {
  it('screenshots use the cast theme unless a profile is chosen', async () => {
    const cast = themed();
    const out = join(dir, 'themed.png');
    const [themedRun, light] = await Promise.all([
      tapedeckInProcess(['screenshot', cast, '--at', '#1', '--out', out, '--json']),
      tapedeckInProcess(['screenshot', cast, '--at', '#1', '--profile', 'light', '--out', join(dir, 'light.png'), '--json']),
    ]);
    expect(themedRun.code).toBe(0);
    expect(JSON.parse(themedRun.stdout).result.profileName).toBe('reference-dark+cast-theme');
    expect(pixel(PNG.sync.read(readFileSync(out)), 2, 2)).toBe(THEME.bg);
    expect(JSON.parse(light.stdout).result.profileName).toBe('reference-light');
    expect(pixel(PNG.sync.read(readFileSync(join(dir, 'light.png'))), 2, 2)).toBe('#ffffff');
  });

  it('video uses the cast theme too', async () => {
    const cast = themed();
    const out = join(dir, 'themed.webm');
    const r = await tapedeckInProcess(['export', cast, '--format', 'webm', '--fps', '2', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const frame = join(dir, 'frame.png');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', out, '-frames:v', '1', frame]);
    // VP8 is lossy: the background is the theme's within a few levels.
    const [red, green, blue] = [1, 3, 5].map((i) => parseInt(pixel(PNG.sync.read(readFileSync(frame)), 2, 2).slice(i, i + 2), 16));
    const want = [0x20, 0x30, 0x40];
    [red, green, blue].forEach((v, i) => expect(Math.abs(v - want[i])).toBeLessThan(12));
  });

  it('export keeps term.theme, term.version and tags (v3), and the theme in v2', async () => {
    const cast = themed();
    const v3 = join(dir, 'out-v3.cast');
    const v2 = join(dir, 'out-v2.cast');
    const runs = await Promise.all([tapedeckInProcess(['export', cast, '--format', 'v3', '--out', v3]), tapedeckInProcess(['export', cast, '--format', 'v2', '--out', v2])]);
    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    const h3 = JSON.parse(readFileSync(v3, 'utf8').split('\n')[0]);
    expect(h3.term).toMatchObject({ cols: 20, rows: 3, version: 'asciinema 3.0', theme: THEME });
    expect(h3.tags).toEqual(['demo', 'emoji']);
    expect(JSON.parse(readFileSync(v2, 'utf8').split('\n')[0]).theme).toEqual(THEME);
  });
});

describe('screenshots of wide characters', () => {
  it('draw an emoji across two cells: what follows it is where the screen has it', async () => {
    // Row 1: "😀|"; row 2: "a|". With emoji two cells wide the bar is in cell 2 on row 1 and cell 1 on row 2.
    const emoji = castFile('wide.cast', { version: 3, term: { cols: 6, rows: 2 } }, [[0.1, 'o', '😀|\r\n||||\x1b[?25l']]);
    const out = join(dir, 'wide.png');
    const r = await tapedeckInProcess(['screenshot', emoji, '--out', out, '--json']);
    expect(r.code).toBe(0);
    const png = PNG.sync.read(readFileSync(out));
    const pad = 8;
    const cell = { w: (png.width - 2 * pad) / 6, h: (png.height - 2 * pad) / 2 };
    const crop = (col: number, row: number) => {
      const px: string[] = [];
      for (let y = 0; y < cell.h; y++) for (let x = 0; x < cell.w; x++) px.push(pixel(png, pad + col * cell.w + x, pad + row * cell.h + y));
      return px.join(' ');
    };
    // Cell 2 of row 1 holds the same bar glyph as cell 2 of row 2 (row 2 is all bars).
    expect(crop(2, 0)).toBe(crop(2, 1));
    expect(crop(3, 0)).not.toBe(crop(3, 1));
  });

  it('the exported player page (asciinema-player) also puts emoji in two cells', async () => {
    const cast = castFile('player.cast', { version: 3, term: { cols: 30, rows: 2 } }, [[0.1, 'o', '😀😀|\x1b[20GX\r\n漢字|🥲|'], [0.1, 'm', 'end']]);
    const out = join(dir, 'player.html');
    expect((await tapedeckInProcess(['export', cast, '--format', 'html', '--out', out])).code).toBe(0);
    const browser = await testBrowser();
    try {
      const page = await (await browser.newContext({ offline: true })).newPage();
      await page.goto(`file://${out}`);
      await page.evaluate(() => (window as unknown as { tapedeckPlayer: { seek(p: unknown): Promise<void> } }).tapedeckPlayer.seek({ marker: 0 }));
      // The player draws each run of text at a cell offset (--offset): after two emoji the bar is at cell 4.
      await page.waitForFunction(() => document.querySelectorAll('.ap-line').length > 0 && document.querySelector('.ap-line')!.textContent!.includes('X'));
      const runs = await page.evaluate(() =>
        [...document.querySelectorAll('.ap-line')].slice(0, 2).map((line) => [...line.children].map((s) => `${(s as HTMLElement).style.getPropertyValue('--offset').trim()}:${s.textContent!.trimEnd()}`)),
      );
      expect(runs).toEqual([
        ['0:😀', '2:😀', '4:|              X'],
        ['0:漢', '2:字', '4:|', '5:🥲', '7:|'],
      ]);
    } finally {
      await browser.close();
    }
  });
});
