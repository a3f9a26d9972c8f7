import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { tapedeck } from '../helpers/cli.js';
import { testBrowser } from '../helpers/browser.js';

/**
 * `tapedeck report --out r.html PATH...` over a vitest run's leftovers (issue
 * 27.7): a screen golden with its .new, a protocol golden with its .new, and
 * a screenshot with .actual.png and .diff.png (as CI leaves them, no .new);
 * the report is opened in Chromium and each shows golden against candidate.
 */
function png(rgb: [number, number, number]): Buffer {
  const img = new PNG({ width: 8, height: 4 });
  for (let i = 0; i < img.data.length; i += 4) [img.data[i], img.data[i + 1], img.data[i + 2], img.data[i + 3]] = [...rgb, 255];
  return PNG.sync.write(img);
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tapedeck-pending-report-'));
  const g = join(dir, 'goldens/test/ui.test.ts');
  mkdirSync(g, { recursive: true });
  writeFileSync(join(g, 'menu.txt'), 'tapedeck-screen v1 cols=10 rows=1 cursor=0,0 cursor-visible=yes alt-screen=no\nOpen      │\n');
  writeFileSync(join(g, 'menu.txt.new'), 'tapedeck-screen v1 cols=10 rows=1 cursor=0,0 cursor-visible=yes alt-screen=no\nOpen file │\n');
  writeFileSync(join(g, 'agent.ndjson'), '{"request":"{\\"op\\":\\"ping\\"}","response":"{\\"pong\\":1}"}\n');
  writeFileSync(join(g, 'agent.ndjson.new'), '{"request":"{\\"op\\":\\"ping\\"}","response":"{\\"pong\\":2}"}\n');
  writeFileSync(join(g, 'shot.png'), png([0, 0, 0]));
  writeFileSync(join(g, 'shot.actual.png'), png([255, 255, 255]));
  writeFileSync(join(g, 'shot.diff.png'), png([255, 0, 0]));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the report shows each pending golden against its candidate, in Chromium', async () => {
  const r = await tapedeck(['report', '--out', 'r.html', 'goldens'], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain('wrote the report of 3 pending golden(s) to');
  const browser = await testBrowser();
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`file://${join(dir, 'r.html')}`);
    const sections = await page.locator('section.tape h2').allTextContents();
    expect(sections.map((s) => s.split(' ')[0])).toEqual(['goldens/test/ui.test.ts/agent.ndjson', 'goldens/test/ui.test.ts/menu.txt', 'goldens/test/ui.test.ts/shot.png']);
    const expected = await page.locator('pre.expected').allTextContents();
    const actual = await page.locator('pre.actual').allTextContents();
    expect(expected.join('\n')).toContain('"pong\\":1');
    expect(actual.join('\n')).toContain('"pong\\":2');
    expect(expected.join('\n')).toContain('Open      │');
    expect(actual.join('\n')).toContain('Open file │');
    // The three images decode, and the slider compares golden and actual.
    const widths = await page.locator('.shots img').evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).naturalWidth));
    expect(widths).toEqual([8, 8, 8]);
    expect(await page.locator('input[data-slider]').count()).toBe(1);
  } finally {
    await browser.close();
  }
});

test('a folder with nothing pending is taken as tapes, as before (none there: exit 2)', async () => {
  mkdirSync(join(dir, 'empty'));
  const r = await tapedeck(['report', '--out', 'e.html', 'empty'], { cwd: dir });
  expect(r.code).toBe(2);
});
