/**
 * Hostile screens and paths for the raster renderer, through the CLI the way
 * a user meets them: a screen far too large (a clear limit error, exit 2,
 * before any memory is taken), a cell with 100 combining marks, unassigned
 * code points, U+FFFD, lone surrogates, control characters, right-to-left
 * text and a different 24-bit colour in every cell (drawn, bounded), and an
 * output path that cannot be written (exit 2, no file, no temp file left).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodePng } from '../../src/render/pixel/png.js';
import { readPngStamp, renderScreenPng } from '../../src/render/raster/index.js';
import { tapedeck, tempDir } from '../helpers/cli.js';
import { written } from '../helpers/render-corpus.js';

const temp = tempDir('tapedeck-render-hostile-');
afterAll(() => temp.cleanup());

function cast(name: string, width: number, height: number, output: string): string {
  const file = join(temp.dir, name);
  writeFileSync(file, `${JSON.stringify({ version: 2, width, height })}\n${JSON.stringify([0.1, 'o', output])}\n`);
  return file;
}

const E = '\x1b';
const COLS = 80;
const ROWS = 40;
const colourAt = (r: number, c: number) => [(r * 6 + 7) & 255, (c * 3 + 11) & 255, (r * c + 5) & 255];

describe('hostile screens', () => {
  it('a 1000x1000-cell screen is refused above the documented limit: exit 2 naming the file, no PNG', async () => {
    const file = cast('huge.cast', 1000, 1000, 'x');
    const out = join(temp.dir, 'huge.png');
    const r = await tapedeck(['screenshot', file, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tapedeck: .*huge\.cast: a 1000x1000 screen is 9016x18016 pixels, too large to render \(at most 16384 a side and 40000000 pixels\)/);
    expect(r.stderr).toContain('TAPEDECK_MAX_SCREENSHOT_PIXELS');
    expect(existsSync(out)).toBe(false);
  });

  it('combining marks, unassigned code points, U+FFFD, lone surrogates, controls, RTL and a colour per cell: drawn, each cell in its own colours', async () => {
    const marks = 'a' + '\u0301\u0323\u0308\u0330'.repeat(25);
    const lines = [
      `marks:${marks}| unassigned:\u{50000}\u0378\u{E01F0}| fffd:\ufffd|`,
      `lone:\ud800\udc00x\udbff| ctl:\x01\x02\x7f\u0080\u0081\u009b0m\x00| rtl: שלום עולם مرحبا ‮reversed‬ end`,
      ...Array.from({ length: ROWS - 3 }, (_, r) => Array.from({ length: COLS }, (_, c) => {
        const [R, G, B] = colourAt(r, c);
        return `${E}[48;2;${R};${G};${B}m${E}[38;2;${255 - R};${255 - G};${255 - B}m${String.fromCharCode(0x21 + ((r + c) % 90))}`;
      }).join('') + `${E}[0m`),
    ];
    const file = cast('hostile.cast', COLS, ROWS, lines.join('\r\n'));
    const out = join(temp.dir, 'hostile.png');
    const r = await tapedeck(['screenshot', file, '--out', out, '--hide-cursor']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const png = readFileSync(out);
    const stamp = readPngStamp(png)!;
    const img = decodePng(png);
    expect([img.width, img.height]).toEqual([2 * stamp.padding.x + COLS * stamp.cell.width, 2 * stamp.padding.y + ROWS * stamp.cell.height]);
    // Every cell of the grid shows its own background in its top-left pixel (the glyphs sit inside).
    let wrong = 0;
    for (let r2 = 0; r2 < ROWS - 3; r2++) {
      for (let c = 0; c < COLS; c++) {
        const x = stamp.padding.x + c * stamp.cell.width;
        const y = stamp.padding.y + (r2 + 2) * stamp.cell.height;
        const i = (y * img.width + x) * 4;
        if (img.data.subarray(i, i + 3).join() !== colourAt(r2, c).join()) wrong++;
      }
    }
    expect(wrong).toBe(0);
    // The 100 marks stay in their cell: the cells either side of it are drawn as usual.
    const row0 = (c: number) => {
      let ink = 0;
      for (let y = 0; y < stamp.cell.height; y++) for (let x = 0; x < stamp.cell.width; x++) ink += img.data[((stamp.padding.y + y) * img.width + stamp.padding.x + c * stamp.cell.width + x) * 4];
      return ink;
    };
    expect(row0(6)).toBeGreaterThan(0); // the a with its marks
    expect(row0(7)).toBeGreaterThan(0); // the | after it
  });

  it('memory stays bounded: the same large screen 10 times adds no more than a few frames of memory', async () => {
    const { snap } = await written('big', 100, 200, Array.from({ length: 100 }, (_, r) => `${E}[48;2;${r};${r * 2 & 255};90m${'x'.repeat(200)}`).join('\r\n'));
    renderScreenPng(snap);
    const before = process.memoryUsage().rss;
    for (let i = 0; i < 10; i++) renderScreenPng(snap);
    const grown = process.memoryUsage().rss - before;
    const frame = (200 * 9 + 16) * (100 * 18 + 16) * 4;
    expect(grown).toBeLessThan(4 * frame);
  });
});

describe('unwritable output', () => {
  it('exit 2 naming the path, no PNG and no temp file left, for a folder that is a file and an output that is a folder', async () => {
    const file = cast('small.cast', 10, 3, 'hi');
    const underFile = await tapedeck(['screenshot', file, '--out', '/etc/hostname/shot.png']);
    expect(underFile.code).toBe(2);
    expect(underFile.stderr).toMatch(/^tapedeck: \/etc\/hostname\/shot\.png: cannot create the folder for the screenshot/);
    const folder = join(temp.dir, 'taken.png');
    mkdirSync(folder);
    const intoFolder = await tapedeck(['screenshot', file, '--out', folder]);
    expect(intoFolder.code).toBe(2);
    expect(intoFolder.stderr).toMatch(/taken\.png: cannot write: .*\(nothing was changed\)/);
    expect(intoFolder.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(folder)).toEqual([]);
    expect(readdirSync(temp.dir).filter((f) => f.includes('.tmp'))).toEqual([]);
  });
});
