import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { getBrowser, chromiumPath, INSTALL_HINT } from './browser.js';
import { FONT_PACKAGES, packageDir, primaryFontFile } from './fonts.js';
import { rendererPage, renderSnapshot } from './renderer.js';
import { decodePng } from '../pixel/png.js';
import { Screen } from '../../session/screen/screen.js';
import { DEFAULT_PROFILE, PROFILES } from '../profiles.js';

/** One doctor check (seed 002 §19.2), with what to do when it failed. */
export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail?: string;
  fix?: string;
  /** A problem that does not stop anything (ok stays true). */
  warning?: string;
}

const SKIPPED = 'skipped: Chromium is unavailable';

/** The renderer's checks, in order; later ones are skipped (failed) when Chromium can't start. */
export async function rendererChecks(): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const exe = chromiumPath();
  const found = existsSync(exe);
  checks.push(found ? { name: 'chromium-found', ok: true, detail: exe } : { name: 'chromium-found', ok: false, detail: `no file at ${exe}`, fix: INSTALL_HINT });
  checks.push(fontPackagesCheck());
  let launched = false;
  if (found) {
    try {
      const browser = await getBrowser();
      checks.push({ name: 'playwright-browser', ok: true, detail: `Chromium ${browser.version()} launched` });
      launched = true;
    } catch (err) {
      checks.push({ name: 'playwright-browser', ok: false, detail: (err as Error).message, fix: INSTALL_HINT });
    }
  } else {
    checks.push({ name: 'playwright-browser', ok: false, detail: SKIPPED, fix: INSTALL_HINT });
  }
  if (!launched) {
    for (const name of ['font-load', 'screenshot-export']) checks.push({ name, ok: false, detail: SKIPPED, fix: INSTALL_HINT });
    return checks;
  }
  // The test screenshot loads the fonts; then the page can say whether they loaded.
  const shot = await screenshotCheck();
  checks.push(await fontLoadCheck(), shot);
  return checks;
}

function fontPackagesCheck(): DoctorCheck {
  try {
    primaryFontFile();
  } catch (err) {
    return { name: 'font-package', ok: false, detail: (err as Error).message, fix: 'npm install (dejavu-fonts-ttf is a dependency of tapedeck)' };
  }
  const missing = FONT_PACKAGES.filter((p) => !packageDir(p.name) || (p.stylesheet.endsWith('.css') && p.stylesheet !== 'tapedeck.css' && !existsSync(join(packageDir(p.name)!, p.stylesheet))));
  if (missing.length) {
    return {
      name: 'font-package', ok: true, detail: 'DejaVu Sans Mono present',
      warning: `fallback fonts missing (${missing.map((p) => p.name).join(', ')}): those characters render as boxes. Fix: npm install`,
    };
  }
  return { name: 'font-package', ok: true, detail: FONT_PACKAGES.map((p) => p.name).join(', ') };
}

/** Renders a small screen of box drawing and colour, and checks it is drawn. */
async function screenshotCheck(): Promise<DoctorCheck> {
  const screen = new Screen({ rows: 3, cols: 12, scrollback: 0 });
  try {
    await screen.write('┌────┐\x1b[31mok\x1b[0m\r\n│ \x1b[1mhi\x1b[0m │\r\n└────┘');
    const shot = await renderSnapshot(screen.snapshot({ includeCells: true }), { profile: DEFAULT_PROFILE });
    const img = decodePng(shot.png);
    let ink = 0;
    for (let i = 0; i < img.data.length; i += 4) if (img.data[i] > 64 || img.data[i + 1] > 64 || img.data[i + 2] > 64) ink++;
    if (img.width !== shot.pixelWidth || img.height !== shot.pixelHeight || ink < 50) {
      return { name: 'screenshot-export', ok: false, detail: `the test screenshot is blank (${ink} lit pixels of ${img.width}x${img.height})`, fix: 'run with TAPEDECK_DEBUG=1 and report the Chromium version' };
    }
    return { name: 'screenshot-export', ok: true, detail: `${img.width}x${img.height} px, ${shot.png.length} bytes` };
  } catch (err) {
    return { name: 'screenshot-export', ok: false, detail: (err as Error).message, fix: INSTALL_HINT };
  } finally {
    screen.dispose();
  }
}

/** Asks the page whether the pinned font actually loaded (not a silent fallback). */
async function fontLoadCheck(): Promise<DoctorCheck> {
  try {
    const { page } = await rendererPage();
    const font = `${PROFILES[DEFAULT_PROFILE].fontSize}px "DejaVu Sans Mono"`;
    const loaded = await page.evaluate(async (f) => {
      await document.fonts.load(f);
      return [...document.fonts].filter((face) => face.family.replace(/["']/g, '') === 'DejaVu Sans Mono' && face.status === 'loaded').length;
    }, font);
    if (loaded < 1) return { name: 'font-load', ok: false, detail: 'DejaVu Sans Mono did not load in the page', fix: 'npm install (reinstall dejavu-fonts-ttf)' };
    return { name: 'font-load', ok: true, detail: `DejaVu Sans Mono loaded (${loaded} face${loaded === 1 ? '' : 's'})` };
  } catch (err) {
    return { name: 'font-load', ok: false, detail: (err as Error).message, fix: 'npm install (reinstall dejavu-fonts-ttf)' };
  }
}
