/**
 * What the raster renderer draws, read back from its pixels through the
 * public API (renderScreenRgba / renderScreenPng): each SGR attribute, the
 * underline styles and colour, the cursor shapes, the geometric characters,
 * the stamp and the limits.
 */
import { describe, expect, it } from 'vitest';
import { renderScreenPng, renderScreenRgba, readPngStamp, RASTER_RENDERER, type RasterImage } from '../../src/render/raster/index.js';
import { decodePng } from '../../src/render/pixel/png.js';
import { written } from '../helpers/render-corpus.js';

const E = '\x1b';

function cellPixels(img: RasterImage, row: number, col: number, cells = 1): number[][] {
  const out: number[][] = [];
  for (let y = 0; y < img.cell.height; y++) {
    for (let x = 0; x < img.cell.width * cells; x++) {
      const i = ((img.padding.y + row * img.cell.height + y) * img.width + img.padding.x + col * img.cell.width + x) * 4;
      out.push([img.data[i], img.data[i + 1], img.data[i + 2]]);
    }
  }
  return out;
}
const hex = (p: number[]) => `#${p.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
const colours = (img: RasterImage, row: number, col: number) => new Set(cellPixels(img, row, col).map(hex));
/** The rows of a cell (0-based from its top) holding a pixel of the colour. */
function rowsWith(img: RasterImage, row: number, col: number, colour: string): number[] {
  const px = cellPixels(img, row, col);
  const rows = new Set<number>();
  px.forEach((p, i) => hex(p) === colour && rows.add(Math.floor(i / img.cell.width)));
  return [...rows].sort((a, b) => a - b);
}

/** The rows of a cell in which every pixel is lit (red channel over 128): a line across it. */
function fullRows(img: RasterImage, row: number, col: number): number[] {
  const px = cellPixels(img, row, col);
  const rows: number[] = [];
  for (let y = 0; y < img.cell.height; y++) if (px.slice(y * img.cell.width, (y + 1) * img.cell.width).every((p) => p[0] > 128)) rows.push(y);
  return rows;
}

describe('raster renderer', () => {
  it('draws every SGR attribute: colours (bold bright, dim halfway), inverse, invisible, lines', async () => {
    const { snap } = await written('sgr', 2, 40, `${E}[31mR${E}[1;31mB${E}[0m${E}[2;37mD${E}[0m${E}[7;32mI${E}[0m${E}[8mH${E}[0m${E}[9mS${E}[0m${E}[53m ${E}[0m${E}[38;2;1;2;3;48;2;250;251;252mT${E}[0m${E}[38;5;196mP${E}[0m`);
    const img = renderScreenRgba(snap);
    expect(colours(img, 0, 0)).toContain('#cd3131'); // red
    expect(colours(img, 0, 1)).toContain('#f14c4c'); // bold: bright red
    expect(colours(img, 0, 2)).toContain('#737373'); // dim white: half-way to black
    expect([...colours(img, 0, 3)]).toEqual(expect.arrayContaining(['#0dbc79', '#000000'])); // inverse: green background
    expect(cellPixels(img, 0, 3).filter((p) => hex(p) === '#0dbc79').length).toBeGreaterThan(img.cell.width * img.cell.height / 2);
    expect([...colours(img, 0, 4)]).toEqual(['#000000']); // invisible
    expect(fullRows(img, 0, 5).length).toBeGreaterThan(0); // strike: a line across the S
    expect(fullRows(img, 0, 5).every((y) => y > 4 && y < img.cell.height - 5)).toBe(true);
    expect(rowsWith(img, 0, 6, '#e5e5e5')).toEqual([0]); // overline on a space: the top row only
    expect(colours(img, 0, 7)).toContain('#fafbfc');
    expect(colours(img, 0, 7)).toContain('#010203');
    expect(colours(img, 0, 8)).toContain('#ff0000'); // palette 196
  });

  it('draws the five underline styles differently, in the underline colour when it has one', async () => {
    const { snap } = await written('ul', 1, 12, `${E}[4m ${E}[4:2m ${E}[4:3m ${E}[4:4m ${E}[4:5m ${E}[4;58;2;0;255;0m ${E}[0m`);
    const img = renderScreenRgba(snap);
    const shapes = [0, 1, 2, 3, 4].map((c) => JSON.stringify(cellPixels(img, 0, c).map((p) => (p[0] > 0 ? 1 : 0))));
    expect(new Set(shapes).size).toBe(5);
    expect(rowsWith(img, 0, 1, '#e5e5e5').length).toBe(2); // double: two rows
    expect(rowsWith(img, 0, 2, '#e5e5e5').length).toBeGreaterThan(1); // curly: a wave
    expect(rowsWith(img, 0, 5, '#00ff00').length).toBe(1); // its own colour
    expect(colours(img, 0, 5)).not.toContain('#e5e5e5');
  });

  it('draws the cursor as a block, an underline, a bar, or not at all', async () => {
    const at = async (seq: string) => renderScreenRgba((await written('c', 2, 6, `ab${E}[1;1H${seq}`)).snap);
    const block = await at(`${E}[2 q`);
    expect(colours(block, 0, 0)).toContain('#e5e5e5');
    expect(cellPixels(block, 0, 0).filter((p) => hex(p) === '#e5e5e5').length).toBeGreaterThan(block.cell.width * block.cell.height / 2);
    const bar = await at(`${E}[6 q`);
    expect(cellPixels(bar, 0, 0).filter((_, i) => i % bar.cell.width === 0).every((p) => hex(p) === '#e5e5e5')).toBe(true);
    const under = await at(`${E}[4 q`);
    expect(rowsWith(under, 0, 0, '#e5e5e5')).toContain(under.cell.height - 1);
    const hidden = await at(`${E}[?25l`);
    const blank = await written('c', 2, 6, 'ab');
    blank.snap.cursor.visible = false;
    expect(Buffer.from(hidden.data).equals(Buffer.from(renderScreenRgba(blank.snap).data))).toBe(true);
    expect(Buffer.from(renderScreenRgba((await written('c', 2, 6, `ab${E}[1;1H`)).snap, { cursor: 'hide' }).data).equals(Buffer.from(hidden.data))).toBe(true);
  });

  it('draws box drawing joined across cells, blocks, braille and Powerline separators from geometry', async () => {
    const { snap } = await written('geo', 3, 12, '─┼─█⣿⠁\ue0b0\ue0b2\ue0b4 \r\n │ ▄\r\n');
    const img = renderScreenRgba(snap);
    // The horizontal line runs through all three cells on the same row, every column lit: no gap at the joins.
    const line = fullRows(img, 0, 0);
    expect(line.length).toBeGreaterThan(0);
    expect(fullRows(img, 0, 1)).toEqual(expect.arrayContaining(line));
    expect(fullRows(img, 0, 2)).toEqual(line);
    // ┼ reaches the top and bottom of its cell, and │ below continues it.
    expect(rowsWith(img, 0, 1, '#e5e5e5')).toEqual(expect.arrayContaining([0, img.cell.height - 1]));
    expect(rowsWith(img, 1, 1, '#e5e5e5')).toEqual(expect.arrayContaining([0, img.cell.height - 1]));
    expect([...colours(img, 0, 3)]).toEqual(['#e5e5e5']); // █: the whole cell
    expect(rowsWith(img, 1, 3, '#e5e5e5')).toEqual(Array.from({ length: img.cell.height / 2 }, (_, i) => img.cell.height / 2 + i)); // ▄
    const dots = (c: number) => cellPixels(img, 0, c).filter((p) => p[0] > 128).length;
    expect(dots(4)).toBeGreaterThan(6 * dots(5)); // ⣿ eight dots, ⠁ one
    expect(dots(5)).toBeGreaterThan(0);
    // : the left column full, the right column only near the middle; its mirror the other way.
    const column = (c: number, x: number) => cellPixels(img, 0, c).filter((_, i) => i % img.cell.width === x).map((p) => (p[0] > 128 ? 1 : 0));
    expect(column(6, 0).every((v) => v === 1)).toBe(true);
    expect(column(6, img.cell.width - 1).filter((v) => v).length).toBeLessThan(4);
    expect(column(7, img.cell.width - 1).every((v) => v === 1)).toBe(true);
    expect(dots(8)).toBeGreaterThan(img.cell.width * img.cell.height / 2);
  });

  it('gives a wide character two cells and writes the stamp that locates every cell', async () => {
    const { snap } = await written('wide', 2, 10, 'a中b😀c');
    const img = renderScreenRgba(snap, { cursor: 'hide' });
    const inked = (c: number) => cellPixels(img, 0, c).some((p) => p[0] > 128);
    expect([0, 1, 2, 3, 4, 5, 6].map(inked)).toEqual([true, true, true, true, true, true, true]);
    expect(inked(7)).toBe(false);
    const png = renderScreenPng(snap, { cursor: 'hide' });
    const decoded = decodePng(png);
    expect(Buffer.from(decoded.data).equals(Buffer.from(img.data))).toBe(true);
    expect(readPngStamp(png)).toMatchObject({ renderer: RASTER_RENDERER, rows: 2, cols: 10, cell: img.cell, padding: img.padding });
    expect(img.width).toBe(img.padding.x * 2 + 10 * img.cell.width);
  });
});
