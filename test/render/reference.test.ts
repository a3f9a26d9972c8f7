/**
 * The raster renderer against the reference: xterm.js's DOM renderer in
 * Chromium, the renderer screenshots had before. Cells are compared, not
 * pixels (the two rasterise glyphs differently): per cell, ink present or not
 * must agree in at least 99% of the cells of every screen, and the ink's
 * colour in at least 97% of the cells inked in both. A glyph in the wrong
 * cell, a missing wide glyph or a wrong colour fails it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderScreenPng, renderScreenRgba } from '../../src/render/raster/index.js';
import { closeRenderer, renderSnapshot as renderInBrowser } from '../../src/render/browser/renderer.js';
import { compareCells, programScreens, rgbaOfPng, syntheticScreens, type CorpusScreen } from '../helpers/render-corpus.js';
import { tempDir } from '../helpers/cli.js';

const home = tempDir('tapedeck-render-ref-');
let corpus: CorpusScreen[] = [];

beforeAll(async () => {
  corpus = [...(await syntheticScreens()), ...(await programScreens(home.dir))];
}, 60_000);
afterAll(async () => {
  await closeRenderer();
  home.cleanup();
});

describe('raster renderer vs xterm.js in Chromium, cell by cell', () => {
  it('agrees on ink in >= 99% of the cells and on its colour in >= 97% of the cells inked in both, on every screen', async () => {
    expect(corpus.map((s) => s.name)).toHaveLength(14);
    const report: string[] = [];
    for (const { name, snap } of corpus) {
      const ours = renderScreenRgba(snap);
      const refPng = (await renderInBrowser(snap)).png;
      const ref = rgbaOfPng(refPng);
      const dump = process.env.TAPEDECK_RENDER_DUMP; // a folder: both images of each screen, to look at
      if (dump) {
        const { writeFileSync } = await import('node:fs');
        writeFileSync(`${dump}/${name.replace(/\W+/g, '-')}.ref.png`, refPng);
        writeFileSync(`${dump}/${name.replace(/\W+/g, '-')}.raster.png`, renderScreenPng(snap));
      }
      expect([ref.width, ref.height], name).toEqual([ours.width, ours.height]);
      const a = compareCells(ours, ref, snap, ours.cell, ours.padding.x);
      const ink = a.inkAgree / a.cells;
      const colour = a.inkedInBoth ? a.colourAgree / a.inkedInBoth : 1;
      report.push(`${name}: ink ${(ink * 100).toFixed(2)}% of ${a.cells}, colour ${(colour * 100).toFixed(2)}% of ${a.inkedInBoth}${a.disagreements.length ? `\n    ${a.disagreements.join('\n    ')}` : ''}`);
      expect(a.inkedInBoth, name).toBeGreaterThan(0);
    }
    const failing = corpus.filter((_, i) => {
      const m = /ink ([\d.]+)% .* colour ([\d.]+)%/.exec(report[i])!;
      return Number(m[1]) < 99 || Number(m[2]) < 97;
    });
    if (process.env.TAPEDECK_RENDER_REPORT) (await import('node:fs')).writeFileSync(process.env.TAPEDECK_RENDER_REPORT, report.join('\n'));
    expect(failing.map((s) => s.name), report.join('\n')).toEqual([]);
  }, 120_000);
});
