import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { renderHtmlReport, type ReportRun, replayProtocolTape } from '../../src/index.js';
import { testBrowser } from '../helpers/browser.js';
import { comparePngs, diffImage } from '../../src/render/pixel/diff.js';
import { ROOT, tempDir } from '../helpers/cli.js';

let browser: Browser;
let dir: string;
let cleanup: () => void;
beforeAll(async () => {
  browser = await testBrowser();
  ({ dir, cleanup } = tempDir());
});
afterAll(async () => {
  await browser?.close();
  cleanup?.();
});

/** A run with a real protocol drift and a terminal tape with players and screenshots. */
async function sampleRun(): Promise<ReportRun> {
  mkdirSync(join(dir, 'project'), { recursive: true });
  const server = join(dir, 'server.mjs');
  writeFileSync(server, readFileSync(join(ROOT, 'examples/agent-server.mjs'), 'utf8').replace("agent_protocol: '1.0'", "agent_protocol: '2.0'"));
  const tape = join(dir, 'version.ndjson');
  writeFileSync(tape, `${JSON.stringify({ request: '{"op":"version"}', response: '{"kind":"result","op":"version","ok":true,"mty_version":"0.35.0","agent_protocol":"1.0"}\n{"kind":"done","exit_code":0}\n' })}\n`);
  const protocol = await replayProtocolTape(tape, { command: ['node', server] });
  expect(protocol.drifts).toHaveLength(1);
  const cast = readFileSync(join(ROOT, 'test/fixtures/casts/v3.cast'), 'utf8');
  const expectedPng = readFileSync(join(ROOT, 'goldens/screenshots/cli/styles-at-drawn.png'));
  const actualPng = readFileSync(join(ROOT, 'goldens/screenshots/test/render/screenshot-apps.test.ts/toMatchScreenshot__htop-help-screen.png'));
  const diff = comparePngs(expectedPng, expectedPng);
  expect(diff.pass).toBe(true);
  return {
    title: 'nightly replay',
    startedAt: new Date('2026-11-29T12:00:00Z'),
    durationMs: 1234,
    tapes: [
      { tape: tape, kind: 'protocol', durationMs: protocol.durationMs, units: protocol.pairs.length, drifts: protocol.drifts },
      {
        tape: 'goldens/demo.cast',
        kind: 'terminal',
        durationMs: 300,
        units: 3,
        drifts: [
          {
            code: 'TD1001', tape: 'goldens/demo.cast', line: 4, byteStart: 0, byteEnd: 10, pair: 2, request: 'marker "drawn"', recordedLine: '[0.1, "m", "drawn"]',
            title: 'checkpoint screen differs', details: [], expected: 'hello world\n$ ', actual: 'hello there\n$ ',
          },
        ],
        recordedCast: cast,
        replayedCast: cast,
        recordedMarkers: [[0.5, 'drawn']],
        replayedMarkers: [[0.5, 'drift at step 2']],
        screenshots: [{ label: 'drawn', expected: expectedPng, actual: actualPng, diff: diffImage(expectedPng, expectedPng) }],
      },
      { tape: 'goldens/clean.ndjson', kind: 'protocol', durationMs: 20, units: 7, drifts: [] },
    ],
  };
}

describe('HTML report', () => {
  test('loads offline in Chromium: summary, drifts with paths, players that seek to markers, images', async () => {
    const html = renderHtmlReport(await sampleRun());
    const file = join(dir, 'report.html');
    writeFileSync(file, html);
    const context = await browser.newContext({ offline: true });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) requests.push(r.url());
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`file://${file}`);
    expect(requests).toEqual([]); // everything is inlined
    expect(errors).toEqual([]);
    await expect.poll(() => page.locator('header .summary').innerText()).toContain('3 tape(s)');
    expect(await page.locator('header .summary').innerText()).toMatch(/1\s+passed[\s\S]*2\s+drifted/);
    const drift = page.locator('article.drift-item[data-code="TD1001"]').first();
    expect(await drift.innerText()).toContain('$.agent_protocol: expected "1.0", got "2.0"');
    expect(await drift.locator('pre.expected .del').innerText()).toContain('"agent_protocol": "1.0"');
    expect(await drift.locator('pre.actual .add').innerText()).toContain('"agent_protocol": "2.0"');

    // The players exist, play, and seek to a marker.
    await page.waitForFunction(() => Object.keys((window as any).tapedeckPlayers).length === 2);
    const duration = await page.evaluate(async () => {
      const p = (window as any).tapedeckPlayers['player-1-recorded'];
      await p.play();
      return p.getDuration();
    });
    expect(duration).toBeGreaterThan(0);
    const at = await page.evaluate(async () => {
      const p = (window as any).tapedeckPlayers['player-1-recorded'];
      await p.pause();
      await p.seek({ marker: 0 });
      return p.getCurrentTime();
    });
    expect(at).toBeCloseTo(0.5, 1);
    expect(await page.locator('[data-player="recorded"] .ap-terminal, [data-player="recorded"] .ap-term').count()).toBeGreaterThan(0);

    // Screenshots are decoded images, and the slider moves the overlay.
    for (const shot of ['expected', 'actual', 'diff']) {
      const width = await page.locator(`img[data-shot="${shot}"]`).evaluate((img: HTMLImageElement) => img.naturalWidth);
      expect(width, shot).toBeGreaterThan(100);
    }
    await page.locator('input[data-slider]').fill('80');
    expect(await page.locator('.compare .over').evaluate((el: HTMLElement) => el.style.width)).toBe('80%');
    await context.close();
  });
});
