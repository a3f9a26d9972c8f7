/**
 * toMatchScreenshot on real programs in real PTYs, rendered by real Chromium.
 * Goldens live in goldens/screenshots/test/render/screenshot-apps.test.ts/ (written when missing
 * locally, compared on CI).
 */
const goldensBefore = process.env.TAPEDECK_GOLDENS;
process.env.TAPEDECK_GOLDENS = 'goldens/screenshots';

import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import '../../src/matchers/index.js';
import { toMatchScreenshot, type ScreenshotMatcherOptions } from '../../src/matchers/screenshot.js';
import { resetGoldenCounters } from '../../src/matchers/context.js';
import { spawnTerminal } from '../../src/session/index.js';
import { closeRenderer, screenshotTerminal } from '../../src/index.js';
import { decodePng, encodePng, pngSize } from '../../src/render/pixel/png.js';
import { readPngStamp } from '../../src/render/raster/index.js';
import { ROOT, tempDir } from '../helpers/cli.js';

expect.extend({ toMatchScreenshot });
declare module 'vitest' {
  interface Matchers<T = any> {
    toMatchScreenshot(options?: ScreenshotMatcherOptions): Promise<T>;
  }
}

const SCREENS = join(ROOT, 'test/fixtures/screens');
const GOLDENS = join(ROOT, 'goldens/screenshots/test/render/screenshot-apps.test.ts');
const home = tempDir('tapedeck-apps-home-');
beforeEach(() => resetGoldenCounters());
afterAll(async () => {
  await closeRenderer();
  home.cleanup();
  // Test files may share a process (vitest's isolate: false): leave the variable as it was.
  if (goldensBefore === undefined) delete process.env.TAPEDECK_GOLDENS;
  else process.env.TAPEDECK_GOLDENS = goldensBefore;
});

// printf's format: every style the renderer must get right, in one screen.
const E = '\\033';
const CRAFTED = [
  `plain ${E}[1mbold${E}[0m ${E}[3mitalic${E}[0m ${E}[4munder${E}[0m ${E}[7minverse${E}[0m ${E}[1;3;4mall${E}[0m\\n`,
  `${Array.from({ length: 16 }, (_, i) => `${E}[48;5;${i}m  `).join('')}${E}[0m\\n`,
  `${Array.from({ length: 36 }, (_, i) => `${E}[48;5;${16 + i * 6}m `).join('')}${E}[0m\\n`,
  `${Array.from({ length: 36 }, (_, i) => `${E}[48;2;${i * 7};${250 - i * 7};${100 + i * 4}m `).join('')}${E}[0m\\n`,
  `${E}[38;2;255;140;0mtruecolour${E}[0m ${E}[38;5;39m256-colour${E}[0m ${E}[1;31mbold red${E}[0m\\n`,
  '┌──┬──┐ ╔══╗ ▁▂▃▄▅▆▇█ ░▒▓\\n│ab│cd│ ║ok║ 中文 日本語 かな\\n└──┴──┘ ╚══╝ 😀 🎉 👍 ✅\\n',
].join('');

describe('toMatchScreenshot', () => {
  it('crafted screen: styles, 256 and truecolour, box drawing, CJK, emoji (printf in a PTY)', async () => {
    const term = spawnTerminal('printf', [CRAFTED], { rows: 10, cols: 40, cwd: home.dir });
    await term.waitForExit();
    await expect(term).toMatchScreenshot();
    await expect(term).toMatchScreenshot({ profile: 'light', cursor: 'hide' });
    await term.dispose();
    expect(existsSync(join(GOLDENS, 'toMatchScreenshot__crafted-screen-styles,-256-and-truecolour,-box-drawing,-CJK,-emoji-(printf-in-a-PTY)-032b39cb-2.png'))).toBe(true);
  });

  it('vim -u NONE with syntax on, on a small C file', async () => {
    // 'background' set before start-up: tapedeck answers vim's OSC 11 colour query, and an answer that lands
    // after the first draw would switch vim to its dark colours part way (the golden is the light scheme).
    const term = spawnTerminal('vim', ['-u', 'NONE', '-N', '-n', '-i', 'NONE', '--cmd', 'set background=light', '-c', 'syntax on', 'sample.c'], { rows: 16, cols: 60, cwd: SCREENS, env: { HOME: home.dir } });
    await term.waitForText('"sample.c"');
    await expect(term).toMatchScreenshot({ stableMs: 300 });
    term.write(':q!\r');
    await term.waitForExit();
    await term.dispose();
  });

  // htop's main view changes every second (uptime, load, CPU, memory); its help
  // screen is a stable view of the same TUI: colours, bold, reverse video.
  it('htop help screen', async () => {
    const term = spawnTerminal('htop', [], { rows: 24, cols: 80, cwd: home.dir, env: { HOME: home.dir } });
    await term.waitForText('PID');
    term.press('h');
    await term.waitForText('incremental PID search');
    await expect(term).toMatchScreenshot({ stableMs: 300, cursor: 'hide' });
    await term.dispose();
  });

  it('htop main view, with the volatile header and process rows masked', async () => {
    const term = spawnTerminal('htop', ['--no-mouse', '--readonly', '-p', String(process.pid), '-d', '100'], { rows: 24, cols: 80, cwd: home.dir, env: { HOME: home.dir } });
    await term.waitForText('PID');
    // -d 100 = one refresh per 10 s. Above the column header: meters, tasks, load,
    // uptime (their number of rows follows the CPU count); below it: the values of
    // the process row. Both are masked; the header and function-key bar are compared.
    const header = (await term.snapshot()).visibleLines.findIndex((l) => /PID USER/.test(l));
    expect(header).toBeGreaterThan(0);
    await expect(term).toMatchScreenshot({ stableMs: 250, mask: [{ row: 0, col: 0, width: 80, height: header }, { row: header + 1, col: 0, width: 80, height: 22 - header }] });
    await term.dispose();
  });

  it('a different screen fails and writes .actual.png and .diff.png beside the golden', async () => {
    const golden = join(GOLDENS, 'mismatch-probe.png');
    const before = spawnTerminal('printf', ['before'], { rows: 4, cols: 20, cwd: home.dir });
    await before.waitForExit();
    mkdirSync(dirname(golden), { recursive: true });
    writeFileSync(golden, (await screenshotTerminal(before)).png);
    await before.dispose();
    const after = spawnTerminal('printf', ['after!'], { rows: 4, cols: 20, cwd: home.dir });
    await after.waitForExit();
    const saved = process.env.TAPEDECK_UPDATE;
    process.env.TAPEDECK_UPDATE = 'new';
    const actualPath = join(GOLDENS, 'mismatch-probe.actual.png');
    const diffPath = join(GOLDENS, 'mismatch-probe.diff.png');
    try {
      const error = await expect(after).toMatchScreenshot({ name: 'mismatch-probe' }).then(() => null, (e: Error) => e);
      expect(error?.message).toMatch(/screenshot differs from golden goldens\/screenshots\/test\/render\/screenshot-apps\.test\.ts\/mismatch-probe\.png: \d+ pixels/);
      expect(error?.message).toContain('mismatch-probe.actual.png');
      expect(error?.message).toContain('mismatch-probe.diff.png');
      expect(pngSize(readFileSync(diffPath))).toEqual(pngSize(readFileSync(golden)));
      // A tolerance wide enough accepts it.
      resetGoldenCounters();
      await expect(after).toMatchScreenshot({ name: 'mismatch-probe', maxDiffPixelRatio: 0.5 });
    } finally {
      if (saved === undefined) delete process.env.TAPEDECK_UPDATE;
      else process.env.TAPEDECK_UPDATE = saved;
      for (const f of [golden, actualPath, diffPath, `${golden}.new`]) rmSync(f, { force: true });
      await after.dispose();
    }
  });
});

describe('a golden made by another renderer', () => {
  it('is reported as that, with the fix, not as a pixel difference (an unstamped golden of the browser renderer, a stamp of another version)', async () => {
    const golden = join(GOLDENS, 'other-renderer-probe.png');
    const term = spawnTerminal('printf', ['same screen'], { rows: 4, cols: 20, cwd: home.dir });
    await term.waitForExit();
    const saved = process.env.TAPEDECK_UPDATE;
    process.env.TAPEDECK_UPDATE = 'new';
    mkdirSync(dirname(golden), { recursive: true });
    try {
      const shot = (await screenshotTerminal(term)).png;
      // The same pixels without the stamp, as the browser renderer wrote them.
      writeFileSync(golden, encodePng(decodePng(shot)));
      const unstamped = await expect(term).toMatchScreenshot({ name: 'other-renderer-probe' }).then(() => null, (e: Error) => e);
      expect(unstamped?.message).toMatch(/^screenshot golden goldens\/screenshots\/test\/render\/screenshot-apps\.test\.ts\/other-renderer-probe\.png: golden made by renderer xterm-dom-chromium \(unstamped[^)]*\); re-record with -u/);
      expect(existsSync(join(GOLDENS, 'other-renderer-probe.diff.png'))).toBe(false);
      // A stamp of another version of this renderer.
      const stamp = readPngStamp(shot)!;
      writeFileSync(golden, shot.toString('latin1').replace(JSON.stringify(stamp), JSON.stringify({ ...stamp, version: 0 })), 'latin1');
      resetGoldenCounters();
      const older = await expect(term).toMatchScreenshot({ name: 'other-renderer-probe' }).then(() => null, (e: Error) => e);
      expect(older?.message).toMatch(/golden made by renderer tapedeck-raster 0 \(this screenshot: tapedeck-raster \d+\); re-record with -u/);
    } finally {
      if (saved === undefined) delete process.env.TAPEDECK_UPDATE;
      else process.env.TAPEDECK_UPDATE = saved;
      for (const f of [golden, `${golden}.new`, join(GOLDENS, 'other-renderer-probe.actual.png')]) rmSync(f, { force: true });
      await term.dispose();
    }
  });
});

it('goldens stay small', () => {
  for (const f of ['toMatchScreenshot__crafted-screen-styles,-256-and-truecolour,-box-drawing,-CJK,-emoji-(printf-in-a-PTY)-032b39cb.png', 'toMatchScreenshot__htop-help-screen.png']) {
    const path = resolve(GOLDENS, f);
    expect(readFileSync(path).length).toBeLessThan(200_000);
  }
});
