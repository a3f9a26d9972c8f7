import { afterAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { comparePngs } from '../../src/index.js';
import { RASTER_VERSION, readPngStamp } from '../../src/render/raster/index.js';
import { CLI, ROOT, run, tapedeck, tapedeckInProcess, tempDir } from '../helpers/cli.js';

const CAST = 'test/fixtures/screens/styles.cast';
const GOLDEN = join(ROOT, 'goldens/screenshots/cli/styles-at-drawn.png');
const temp = tempDir('tapedeck-shot-cli-');
afterAll(() => temp.cleanup());

describe('tapedeck screenshot', () => {
  it('renders a cast at a marker, with the seed 002 envelope, matching the checked-in golden', async () => {
    const out = join(temp.dir, 'drawn.png');
    const r = await tapedeck(['screenshot', CAST, '--at', 'drawn', '--out', out, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const env = JSON.parse(r.stdout);
    expect(env).toMatchObject({ ok: true, command: 'screenshot' });
    expect(Date.parse(env.timestamp)).not.toBeNaN();
    const png = readFileSync(out);
    expect(env.result).toMatchObject({
      capturedAtSeq: 3, profileName: 'reference-dark', cols: 60, rows: 10, artifactPath: out, pngSizeBytes: png.length,
      cursorVisible: true, rendererBackend: 'tapedeck-raster', pixelWidth: 556, pixelHeight: 196,
      sha256: createHash('sha256').update(png).digest('hex'),
    });
    expect(env.result.renderProfileHash).toMatch(/^[0-9a-f]{64}$/);
    expect(comparePngs(readFileSync(GOLDEN), png).message).toBe('0 pixels differ (allowed 0)');
  });

  it('--at seconds, --profile and --hide-cursor change what is drawn', async () => {
    const a = join(temp.dir, 'end.png');
    const b = join(temp.dir, 'end-light-nocursor.png');
    const r1 = await tapedeckInProcess(['screenshot', CAST, '--at', '0.55', '--out', a]);
    expect(r1.code).toBe(0);
    expect(r1.stdout).toMatch(/^Screenshot saved: .*end\.png \(556x196 px, reference-dark\)\n$/);
    const r2 = await tapedeckInProcess(['screenshot', CAST, '--profile', 'light', '--hide-cursor', '--out', b, '--json']);
    expect(r2.code).toBe(0);
    expect(JSON.parse(r2.stdout).result).toMatchObject({ capturedAtSeq: 5, profileName: 'reference-light', cursorVisible: false });
    expect(readFileSync(a).equals(readFileSync(GOLDEN))).toBe(false);
    expect(readFileSync(a).equals(readFileSync(b))).toBe(false);
  });

  it('bad input is a usage error naming file:line (exit 2)', async () => {
    const out = join(temp.dir, 'never.png');
    const malformed = await tapedeckInProcess(['screenshot', 'test/fixtures/screens/malformed.cast', '--out', out]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/^tapedeck: test\/fixtures\/screens\/malformed\.cast:3: /);
    const marker = await tapedeckInProcess(['screenshot', CAST, '--at', 'nope', '--out', out, '--json']);
    expect(marker.code).toBe(2);
    expect(JSON.parse(marker.stdout)).toMatchObject({ ok: false, command: 'screenshot', error: { code: 'MARKER_NOT_FOUND' } });
    const profile = await tapedeckInProcess(['screenshot', CAST, '--profile', 'neon', '--out', out]);
    expect(profile.code).toBe(2);
    expect(profile.stderr).toContain('unknown render profile "neon"');
    expect((await tapedeckInProcess(['screenshot', CAST])).code).toBe(2);
    expect(existsSync(out)).toBe(false);
  });

  it('needs no browser: with Chromium unreachable the same PNG is written, stamped with the cell grid (exit 0)', async () => {
    const out = join(temp.dir, 'no-browser.png');
    const r = await run([process.execPath, CLI, 'screenshot', CAST, '--at', 'drawn', '--out', out], { env: { TAPEDECK_CHROMIUM: '/nonexistent/chromium', PATH: '/nonexistent' } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const png = readFileSync(out);
    expect(png.equals(readFileSync(GOLDEN))).toBe(true);
    expect(readPngStamp(png)).toEqual({
      renderer: 'tapedeck-raster', version: RASTER_VERSION, rows: 10, cols: 60, cell: { width: 9, height: 18 }, padding: { x: 8, y: 8 },
      fonts: { 'dejavu-fonts-ttf': '2.37.3', '@fontsource/noto-emoji': '5.3.2', '@fontsource/noto-sans-sc': '5.3.0' },
    });
  });
});
