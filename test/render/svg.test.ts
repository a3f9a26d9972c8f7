import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import type { Browser } from 'playwright-core';
import { recordScript } from '../../src/recorder/terminal/script.js';
import { playCast } from '../../src/session/cast/play.js';
import type { ScreenSnapshot } from '../../src/session/screen/screen.js';
import { PROFILES } from '../../src/render/profiles.js';
import { cellPaint } from '../../src/render/svg/colors.js';
import { readSfnt } from '../../src/render/svg/sfnt.js';
import { ROOT, tapedeck, tapedeckInProcess, tempDir } from '../helpers/cli.js';
import { testBrowser } from '../helpers/browser.js';

const require = createRequire(import.meta.url);
const fontverter = require('fontverter') as { convert(b: Buffer, f: 'truetype'): Promise<Buffer> };
const temp = tempDir('tapedeck-svg-');
let browser: Browser;
let vimCast: string;
const STYLES = join(ROOT, 'test/fixtures/screens/styles.cast');

beforeAll(async () => {
  browser = await testBrowser();
  // A real program's screen: vim with syntax colours over a C file, 80x24.
  copyFileSync(join(ROOT, 'test/fixtures/screens/sample.c'), join(temp.dir, 'sample.c'));
  vimCast = join(temp.dir, 'vim.cast');
  await recordScript({
    out: vimCast, command: 'vim', args: ['-u', 'NONE', '-i', 'NONE', '-n', '-c', 'syntax on', '-c', 'set number', 'sample.c'],
    env: { TERM: 'xterm-256color' }, cwd: temp.dir, rows: 24, cols: 80,
    // The file's message can come before the first redraw (vim may wait on a terminal answer first): wait for both.
    steps: [{ waitFor: '"sample.c"', timeoutMs: 30_000 }, { waitFor: '#include <stdio.h>', timeoutMs: 30_000 }, { marker: 'opened' }, { type: ':q!\r' }],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  temp.cleanup();
});

async function snapshotAt(cast: string, marker: string): Promise<ScreenSnapshot> {
  const played = await playCast(cast, { marker }, { scrollback: 0 });
  try {
    return played.screen.snapshot({ includeCells: true });
  } finally {
    played.screen.dispose();
  }
}

/** The SVG drawn by Chromium as an <img>, as GitHub shows one: RGBA pixels. */
async function chromiumPixels(svg: Buffer, width: number, height: number): Promise<PNG> {
  const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1 });
  try {
    // No network: an SVG that needed anything but itself would draw differently.
    await page.route('**/*', (route) => (route.request().url().startsWith('data:') ? route.continue() : route.abort()));
    await page.setContent(`<body style="margin:0"><img src="data:image/svg+xml;base64,${svg.toString('base64')}"></body>`);
    await page.waitForFunction(() => document.images[0].complete && document.images[0].naturalWidth > 0);
    return PNG.sync.read(await page.screenshot({ clip: { x: 0, y: 0, width, height } }));
  } finally {
    await page.close();
  }
}

const hexRgb = (h: string) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));

/**
 * Per cell: does Chromium's drawing have ink (pixels away from the cell's
 * background) where the screen has a visible character, and none where it
 * has a blank? And is the ink of each character inside its own cell?
 */
function cellLayout(png: PNG, snap: ScreenSnapshot, cell: { width: number; height: number }, pad: { x: number; y: number }) {
  const theme = PROFILES['reference-dark'].theme;
  let agree = 0;
  let total = 0;
  const wrong: string[] = [];
  for (let r = 0; r < snap.rows; r++) {
    for (let c = 0; c < snap.cols; c++) {
      const sc = snap.cells![r][c];
      if (sc.width === 0) continue;
      const span = sc.width;
      const paint = cellPaint(sc, theme);
      const cursor = snap.cursor.visible && snap.cursor.row === r && snap.cursor.col === c;
      const bg = hexRgb(cursor ? theme.cursor : (paint.bg ?? theme.background));
      let ink = 0;
      for (let y = pad.y + r * cell.height; y < pad.y + (r + 1) * cell.height; y++) {
        for (let x = pad.x + c * cell.width; x < pad.x + (c + span) * cell.width; x++) {
          const i = (y * png.width + x) * 4;
          if (Math.max(Math.abs(png.data[i] - bg[0]), Math.abs(png.data[i + 1] - bg[1]), Math.abs(png.data[i + 2] - bg[2])) > 48) ink++;
        }
      }
      const fg = hexRgb(cursor ? theme.cursorAccent : paint.fg);
      const visible = Math.max(...fg.map((v, k) => Math.abs(v - bg[k]))) > 48; // text in its background's colour shows nothing
      const expected = visible && !sc.invisible && (sc.char.trim() !== '' || sc.underline || sc.strikethrough || sc.overline);
      total++;
      if (ink > 0 === Boolean(expected)) agree++;
      else wrong.push(`${r},${c} ${JSON.stringify(sc.char)} ink=${ink}`);
    }
  }
  return { agree: agree / total, wrong };
}

describe('tapedeck screenshot --format svg', () => {
  it('draws vim\'s 80x24 screen with every glyph in its cell, under 100 KB, the same bytes each time', async () => {
    const out = join(temp.dir, 'vim.svg');
    const r = await tapedeck(['screenshot', vimCast, '--at', 'opened', '--format', 'svg', '--out', out, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout).result;
    const svg = readFileSync(out);
    expect(result).toMatchObject({ format: 'svg', cols: 80, rows: 24, svgSizeBytes: svg.length, pixelWidth: 80 * result.cell.width + 2 * result.padding.x });
    expect(svg.length).toBeLessThan(100 * 1024);
    const snap = await snapshotAt(vimCast, 'opened');
    expect(snap.visibleLines.join('\n')).toContain('#include <stdio.h>');
    const text = svg.toString();
    // Real text: the source's words are in the document, one <text> per style run with every cell's x.
    expect(text).toMatch(/>include</);
    for (const m of text.matchAll(/<text x="([^"]+)"[^>]*>([^<]*)</g)) expect(m[1].split(' ').length).toBe([...m[2].replace(/&[a-z]+;/g, '_')].length);
    // Colours came through: vim's syntax colours give several text colours.
    expect(new Set([...text.matchAll(/<text[^>]* fill="(#[0-9a-f]{6})"/g)].map((m) => m[1])).size).toBeGreaterThanOrEqual(3);
    const png = await chromiumPixels(svg, result.pixelWidth, result.pixelHeight);
    const layout = cellLayout(png, snap, result.cell, result.padding);
    expect(layout.wrong.slice(0, 10)).toEqual([]);
    expect(layout.agree).toBe(1);
    const again = join(temp.dir, 'vim-again.svg');
    expect((await tapedeckInProcess(['export', vimCast, '--format', 'svg', '--at', 'opened', '--out', again])).code).toBe(0);
    expect(readFileSync(again).equals(svg)).toBe(true);
  }, 120_000); // a hang guard: two renders and a Chromium page took over 60 s on a machine loaded 20-fold

  it('embeds exactly the glyphs it uses, from the pinned fonts: CJK, emoji, box drawing, blocks', async () => {
    const out = join(temp.dir, 'styles.svg');
    const r = await tapedeckInProcess(['export', STYLES, '--format', 'svg', '--at', 'drawn', '--out', out, '--json']);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout).result;
    expect(result.fonts.map((f: { file: string }) => f.file)).toEqual(expect.arrayContaining(['dejavu-fonts-ttf/ttf/DejaVuSansMono.ttf', 'dejavu-fonts-ttf/ttf/DejaVuSansMono-Bold.ttf']));
    expect(result.fonts.some((f: { file: string }) => f.file.startsWith('@fontsource/noto-emoji/'))).toBe(true);
    expect(result.fonts.some((f: { file: string }) => f.file.startsWith('@fontsource/noto-sans-sc/'))).toBe(true);
    const text = readFileSync(out, 'utf8');
    // Only its own families (no system font can stand in), each a data: URL.
    const families = /text\{font-family:([^;]+);/.exec(text)![1].split(',');
    expect(families.at(-1)).toBe('monospace');
    for (const f of families.slice(0, -1)) expect(f).toMatch(/^td[mes]\d*$/);
    expect(text).not.toMatch(/url\((?!data:font\/woff2;base64,)/);
    const mapped = new Set<number>();
    for (const m of text.matchAll(/base64,([A-Za-z0-9+/=]+)/g)) {
      const font = readSfnt(await fontverter.convert(Buffer.from(m[1], 'base64'), 'truetype'));
      for (const ch of '中文日本語😀🎉plainbold') if (font.has(ch.codePointAt(0)!)) mapped.add(ch.codePointAt(0)!);
      expect(font.has('Q'.codePointAt(0)!)).toBe(false); // not on the screen, not embedded
    }
    expect([...mapped].map((c) => String.fromCodePoint(c)).sort().join('')).toBe([...new Set('中文日本語😀🎉plainbold')].sort().join(''));
    // Box drawing and blocks are shapes, the rest text; Chromium puts each in its cell.
    expect(text).toMatch(/<path d="M\d+ \d+h/);
    const snap = await snapshotAt(STYLES, 'drawn');
    const png = await chromiumPixels(Buffer.from(text), result.pixelWidth, result.pixelHeight);
    const layout = cellLayout(png, snap, result.cell, result.padding);
    expect(layout.wrong).toEqual([]);
  });

  it('combining marks, ZWJ emoji, Powerline separators, underline styles and hostile characters', async () => {
    const cast = join(temp.dir, 'hostile.cast');
    const lines = [
      'e\u0301 a\u0308\u0323 \ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67 x',
      '\x1b[44m \ue0b0\x1b[0m\ue0b2 \ue0b4 \x1b[4:3;58;5;196mcurly\x1b[0m \x1b[4:2mdouble\x1b[0m \x1b[21mdbl\x1b[0m \x1b[53mover\x1b[0m',
      `${'x\u0301'.repeat(3)} \ufffd \u05e9\u05dc\u05d5\u05dd <&>"' \x07`,
      `a${'\u0300'.repeat(100)}b`,
    ];
    writeFileSync(cast, [JSON.stringify({ version: 2, width: 40, height: 6 }), JSON.stringify([0.1, 'o', lines.join('\r\n')]), JSON.stringify([0.2, 'm', 'end'])].join('\n') + '\n');
    const out = join(temp.dir, 'hostile.svg');
    const r = await tapedeckInProcess(['screenshot', cast, '--at', 'end', '--format', 'svg', '--out', out, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const text = readFileSync(out, 'utf8');
    // Well-formed XML (Chromium's parser says so) with the clusters whole, one tspan each.
    const page = await browser.newPage();
    try {
      const errors = await page.evaluate((s) => new DOMParser().parseFromString(s, 'image/svg+xml').getElementsByTagName('parsererror').length, text);
      expect(errors).toBe(0);
    } finally {
      await page.close();
    }
    expect(text).toContain('<tspan x="12.5">e\u0301</tspan>');
    expect(text).toContain('&lt;&amp;&gt;');
    expect(text).toContain('fill="none" stroke="#ff0000"'); // the curly underline in its own colour (palette 196)
    const snap = await snapshotAt(cast, 'end');
    const result = JSON.parse(r.stdout).result;
    const png = await chromiumPixels(Buffer.from(text), result.pixelWidth, result.pixelHeight);
    const layout = cellLayout(png, snap, result.cell, result.padding);
    expect(layout.agree).toBeGreaterThanOrEqual(0.99);
  });

  it('bad input: an empty file, a header-only cast, an unknown format, an unwritable path (exit 2, nothing left behind)', async () => {
    const empty = join(temp.dir, 'empty.cast');
    writeFileSync(empty, '');
    const r1 = await tapedeckInProcess(['screenshot', empty, '--format', 'svg', '--out', join(temp.dir, 'e.svg')]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain('empty.cast');
    expect(r1.stderr).not.toMatch(/\n\s+at /);
    const headerOnly = join(temp.dir, 'header.cast');
    writeFileSync(headerOnly, `${JSON.stringify({ version: 2, width: 20, height: 3 })}\n`);
    const blank = join(temp.dir, 'blank.svg');
    expect((await tapedeckInProcess(['export', headerOnly, '--format', 'svg', '--out', blank])).code).toBe(0);
    expect(readFileSync(blank, 'utf8')).not.toContain('<text');
    const r2 = await tapedeckInProcess(['screenshot', STYLES, '--format', 'jpeg', '--out', join(temp.dir, 'x.jpg')]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain('--format must be png or svg');
    const locked = join(temp.dir, 'locked');
    const r3 = await tapedeckInProcess(['export', STYLES, '--format', 'svg', '--out', join(locked, 'x.svg')]);
    expect(r3.code).toBe(2);
    expect(r3.stderr).toMatch(/cannot write: no such directory/);
    expect(existsSync(locked)).toBe(false);
    const huge = join(temp.dir, 'huge.cast');
    writeFileSync(huge, `${JSON.stringify({ version: 2, width: 1000, height: 1000 })}\n[0.1, "o", "x"]\n`);
    const r4 = await tapedeckInProcess(['screenshot', huge, '--format', 'svg', '--out', join(temp.dir, 'huge.svg')]);
    expect(r4.code).toBe(2);
    expect(r4.stderr).toMatch(/huge\.cast: a 1000x1000 screen is \d+x\d+ pixels, too large to render \(limit \d+; raise it with TAPEDECK_MAX_SCREENSHOT_PIXELS\)/);
    expect(existsSync(join(temp.dir, 'huge.svg'))).toBe(false);
    expect(readdirSync(temp.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
