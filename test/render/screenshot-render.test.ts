import { afterAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Screen } from '../../src/session/screen/screen.js';
import { closeRenderer, rendererPage, renderSnapshot } from '../../src/render/browser/renderer.js';
import { screenshotSnapshot } from '../../src/render/screenshot/screenshot.js';
import { decodePng, type RgbaImage } from '../../src/render/pixel/png.js';
import { PROFILES } from '../../src/render/profiles.js';
import { tempDir } from '../helpers/cli.js';

const temp = tempDir('tapedeck-shot-');
afterAll(async () => {
  await closeRenderer();
  temp.cleanup();
});

/** Chromium processes started under this test process (there must be none once closed). */
function chromiumDescendants(): string[] {
  const parent = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const m = /^\d+ \((.*)\) \S (\d+)/.exec(stat);
      if (m) {
        parent.set(Number(entry), Number(m[2]));
        names.set(Number(entry), m[1]);
      }
    } catch {
      // gone already
    }
  }
  const mine = (pid: number): boolean => {
    for (let p = parent.get(pid); p && p > 1; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  return [...names].filter(([pid, name]) => /chrom/i.test(name) && mine(pid)).map(([pid, name]) => `${pid} ${name}`);
}

async function screenOf(data: string, rows = 6, cols = 30): Promise<Screen> {
  const s = new Screen({ rows, cols, scrollback: 0 });
  await s.write(data);
  return s;
}

const CRAFTED = 'A\x1b[1mB\x1b[0m\x1b[7mI\x1b[0m \x1b[48;2;10;200;120m  \x1b[0m \x1b[38;5;196mred\x1b[0m\r\n中X ┌─┐\r\n$ ';

function pixel(img: RgbaImage, x: number, y: number): string {
  const i = (y * img.width + x) * 4;
  return `#${[0, 1, 2].map((k) => img.data[i + k].toString(16).padStart(2, '0')).join('')}`;
}

/** Pixels of a cell's box that differ from the background colour. */
function ink(img: RgbaImage, cell: { x: number; y: number; w: number; h: number }, bg: string): number {
  let n = 0;
  for (let y = cell.y; y < cell.y + cell.h; y++) for (let x = cell.x; x < cell.x + cell.w; x++) if (pixel(img, x, y) !== bg) n++;
  return n;
}

describe('browser renderer', () => {
  it('gives byte-identical PNGs for identical screens: reused page, other history, browser restart', async () => {
    const a = await screenOf(CRAFTED);
    // Same final screen reached another way: drawn, cleared, drawn again.
    const b = await screenOf(`junk\x1b[2J\x1b[H${CRAFTED}`);
    const first = await renderSnapshot(a.snapshot({ includeCells: true }));
    const again = await renderSnapshot(b.snapshot({ includeCells: true }));
    await renderSnapshot(a.snapshot({ includeCells: true }), { profile: 'light' }); // the page switches terminals in between
    const afterSwitch = await renderSnapshot(a.snapshot({ includeCells: true }));
    await closeRenderer();
    expect(chromiumDescendants()).toEqual([]);
    const restarted = await renderSnapshot(a.snapshot({ includeCells: true }));
    for (const other of [again, afterSwitch, restarted]) expect(other.png.equals(first.png)).toBe(true);
    expect(restarted.renderProfileHash).toBe(first.renderProfileHash);
    a.dispose();
    b.dispose();
  });

  it('painting at once (not on the next animation frame) captures each screen exactly as the frame would', async () => {
    const screens = await Promise.all([CRAFTED, 'hello\r\n\x1b[1;32mworld\x1b[0m', `${CRAFTED}\x1b[3;1H\x1b[41mchanged`].map((t) => screenOf(t)));
    const snaps = screens.map((s) => s.snapshot({ includeCells: true }));
    screens.forEach((s) => s.dispose());
    await renderSnapshot(snaps[0]);
    const { page } = await rendererPage();
    type Page = { renderNow: unknown; savedRenderNow?: unknown };
    // The reference: the page waits for xterm's own animation frame, as before renderNow.
    await page.evaluate(() => {
      const w = window as unknown as Page;
      w.savedRenderNow = w.renderNow;
      w.renderNow = () => {};
    });
    const reference: Buffer[] = [];
    for (const snap of snaps) reference.push((await renderSnapshot(snap)).png);
    await page.evaluate(() => {
      const w = window as unknown as Page;
      w.renderNow = w.savedRenderNow;
    });
    for (let i = 0; i < 15; i++) {
      const k = i % snaps.length;
      expect((await renderSnapshot(snaps[k])).png.equals(reference[k])).toBe(true);
    }
    expect(new Set(reference.map((png) => png.toString('base64'))).size).toBe(3);
  });

  it('a painted screen draws its rows once and leaves no redraw for the frame the capture draws', async () => {
    const screens = await Promise.all([CRAFTED, 'hello\r\n\x1b[1;32mworld\x1b[0m'].map((t) => screenOf(t)));
    const snaps = screens.map((s) => s.snapshot({ includeCells: true }));
    screens.forEach((s) => s.dispose());
    await renderSnapshot(snaps[0]);
    const { page } = await rendererPage();
    type Term = { _core: { _renderService: { _renderer: { value: { renderRows(a: number, b: number): void } } } } };
    type Counted = { tapedeckRender: (p: unknown) => Promise<unknown>; rowRenders?: number; atReturn?: number };
    await page.evaluate(() => {
      const w = window as unknown as Counted;
      // The page's terminal is a top-level `let` of its script: global scope, not a window property.
      const renderer = ((0, eval)('term') as Term)._core._renderService._renderer.value;
      const renderRows = renderer.renderRows.bind(renderer);
      w.rowRenders = 0;
      renderer.renderRows = (a, b) => {
        w.rowRenders!++;
        renderRows(a, b);
      };
      const render = w.tapedeckRender;
      w.tapedeckRender = async (p) => {
        const size = await render(p);
        w.atReturn = w.rowRenders;
        return size;
      };
    });
    await renderSnapshot(snaps[1]); // the page's terminal again: reset, then paint, then the capture's frame
    const counts = await page.evaluate(() => {
      const w = window as unknown as Counted;
      return [w.atReturn, w.rowRenders];
    });
    expect(counts).toEqual([1, 1]); // drawn once, and nothing left for the capture's frame
  });

  it('the same screen again is captured without painting it again, and gives the same PNG', async () => {
    const screens = await Promise.all([CRAFTED, 'hello\r\n\x1b[1;32mworld\x1b[0m'].map((t) => screenOf(t)));
    const [a, b] = screens.map((s) => s.snapshot({ includeCells: true }));
    screens.forEach((s) => s.dispose());
    const { page } = await rendererPage();
    type Counted = { tapedeckRender: (p: unknown) => Promise<unknown>; paints?: number };
    await page.evaluate(() => {
      const w = window as unknown as Counted;
      const render = w.tapedeckRender;
      w.paints = 0;
      w.tapedeckRender = (p) => {
        w.paints!++;
        return render(p);
      };
    });
    const first = await renderSnapshot(a);
    const again = await renderSnapshot(a);
    const other = await renderSnapshot(b);
    const back = await renderSnapshot(a);
    const light = await renderSnapshot(a, { profile: 'light' });
    expect(await page.evaluate(() => (window as unknown as Counted).paints)).toBe(4);
    expect(again.png.equals(first.png)).toBe(true);
    expect(back.png.equals(first.png)).toBe(true);
    expect(other.png.equals(first.png)).toBe(false);
    expect(light.png.equals(first.png)).toBe(false);
    expect(again).toMatchObject({ pixelWidth: first.pixelWidth, pixelHeight: first.pixelHeight, cursorVisible: first.cursorVisible });
    // Whoever takes the page may change it: the next render paints afresh.
    await rendererPage();
    await renderSnapshot(a, { profile: 'light' });
    expect(await page.evaluate(() => (window as unknown as Counted).paints)).toBe(5);
  });

  it('draws cells where the grid says: wide characters span two cells, colours are exact', async () => {
    const s = await screenOf(CRAFTED);
    const shot = await renderSnapshot(s.snapshot({ includeCells: true }));
    s.dispose();
    const img = decodePng(shot.png);
    const pad = PROFILES.dark.padding;
    const cw = (img.width - 2 * pad) / 30;
    const ch = (img.height - 2 * pad) / 6;
    expect(Number.isInteger(cw) && Number.isInteger(ch)).toBe(true);
    const cell = (row: number, col: number, span = 1) => ({ x: pad + col * cw, y: pad + row * ch, w: cw * span, h: ch });
    const bg = PROFILES.dark.theme.background;
    expect(pixel(img, 0, 0)).toBe(bg);
    // Truecolour background (cols 4-5), sampled in the cell's middle.
    expect(pixel(img, cell(0, 4).x + 4, cell(0, 4).y + 4)).toBe('#0ac878');
    // Inverse "I" (col 2): the cell's background is the foreground colour.
    expect(pixel(img, cell(0, 2).x + 1, cell(0, 2).y + 1)).toBe(PROFILES.dark.theme.foreground);
    // 中 fills cols 0-1 of row 1 (ink in both halves); X starts at col 2.
    expect(ink(img, cell(1, 0), bg)).toBeGreaterThan(10);
    expect(ink(img, cell(1, 1), bg)).toBeGreaterThan(10);
    expect(ink(img, cell(1, 2), bg)).toBeGreaterThan(10);
    expect(ink(img, cell(1, 3), bg)).toBe(0);
    // The box's horizontal line crosses its cell edge to edge (box drawing glyphs join).
    const line = cell(1, 5);
    const rowHits = Array.from({ length: line.h }, (_, dy) => Array.from({ length: line.w }, (_, dx) => pixel(img, line.x + dx, line.y + dy) !== bg).every(Boolean));
    expect(rowHits.some(Boolean)).toBe(true);
  });

  it('shows or hides the cursor on request, changing only the cursor cell', async () => {
    const s = await screenOf(CRAFTED);
    const snap = s.snapshot({ includeCells: true });
    s.dispose();
    const shown = await renderSnapshot(snap, { cursor: 'show' });
    const hidden = await renderSnapshot(snap, { cursor: 'hide' });
    const auto = await renderSnapshot(snap);
    expect([shown.cursorVisible, hidden.cursorVisible, auto.cursorVisible]).toEqual([true, false, true]);
    expect(auto.png.equals(shown.png)).toBe(true);
    const a = decodePng(shown.png);
    const b = decodePng(hidden.png);
    const pad = PROFILES.dark.padding;
    const cw = (a.width - 2 * pad) / 30;
    const ch = (a.height - 2 * pad) / 6;
    let inside = 0;
    let outside = 0;
    for (let y = 0; y < a.height; y++) {
      for (let x = 0; x < a.width; x++) {
        if (pixel(a, x, y) === pixel(b, x, y)) continue;
        const col = Math.floor((x - pad) / cw);
        const row = Math.floor((y - pad) / ch);
        if (row === snap.cursor.row && col === snap.cursor.col) inside++;
        else outside++;
      }
    }
    expect(snap.cursor).toMatchObject({ row: 2, col: 2 });
    expect(inside).toBeGreaterThan(cw * ch * 0.8);
    expect(outside).toBe(0);
  });

  it('profiles change the theme and the profile hash', async () => {
    const s = await screenOf('hello');
    const snap = s.snapshot({ includeCells: true });
    s.dispose();
    const dark = await renderSnapshot(snap, { profile: 'dark' });
    const light = await renderSnapshot(snap, { profile: 'light' });
    expect(pixel(decodePng(dark.png), 1, 1)).toBe('#000000');
    expect(pixel(decodePng(light.png), 1, 1)).toBe('#ffffff');
    expect(dark.renderProfileHash).not.toBe(light.renderProfileHash);
    await expect(renderSnapshot(snap, { profile: 'neon' })).rejects.toThrow(/unknown render profile "neon" \(known: reference-dark, reference-light; aliases: dark, light\)/);
  });

  it('returns seed 002 §15.3 fields and writes the PNG', async () => {
    const s = await screenOf(CRAFTED, 40, 120);
    const out = join(temp.dir, 'deep', 'shot.png');
    const shot = await screenshotSnapshot(s.snapshot({ includeCells: true }), 17, { out, profile: 'light' });
    s.dispose();
    const file = readFileSync(out);
    expect(shot).toMatchObject({
      capturedAtSeq: 17, profileName: 'reference-light', cols: 120, rows: 40, artifactPath: out, pngSizeBytes: file.length,
      cursorVisible: true, rendererBackend: 'tapedeck-raster', sha256: createHash('sha256').update(file).digest('hex'),
    });
    expect(shot.renderProfileHash).toMatch(/^[0-9a-f]{64}$/);
    const img = decodePng(file);
    expect([img.width, img.height]).toEqual([shot.pixelWidth, shot.pixelHeight]);
    expect(shot.pixelWidth).toBe(2 * 8 + 120 * 9);
    expect(file.length).toBeLessThan(200_000);
  });
});
