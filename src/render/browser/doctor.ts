import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { getBrowser, chromiumPath, INSTALL_HINT } from './browser.js';
import { FONT_PACKAGES, packageDir, primaryFontFile } from './fonts.js';
import { rendererPage } from './renderer.js';
import { rasterEngine, renderSnapshot } from '../raster/render.js';
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

/** What a browser is still used for: screenshots are drawn without one. */
const CHROMIUM_FEATURES = 'the HTML report and its player (tapedeck report) need it; screenshots, screenshot goldens, report images and webm frames do not';
const FFMPEG_FEATURES = 'export --format webm needs it; nothing else does';

/**
 * The renderer's checks, in order: the rasteriser, the pinned fonts and a
 * test screenshot (all of which screenshots need), then Chromium (for the
 * HTML report only) and ffmpeg (for webm only), which are warnings when missing.
 */
export async function rendererChecks(): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [rasteriserCheck(), fontPackagesCheck(), await screenshotCheck()];
  const exe = chromiumPath();
  const found = existsSync(exe);
  checks.push(
    found
      ? { name: 'chromium-found', ok: true, detail: `${exe} (${CHROMIUM_FEATURES})` }
      : { name: 'chromium-found', ok: true, detail: `no file at ${exe}`, warning: `no Chromium: ${CHROMIUM_FEATURES}. Fix: ${INSTALL_HINT}` },
  );
  let launched = false;
  if (found) {
    try {
      const browser = await getBrowser();
      checks.push({ name: 'playwright-browser', ok: true, detail: `Chromium ${browser.version()} launched` });
      launched = true;
    } catch (err) {
      checks.push({ name: 'playwright-browser', ok: true, detail: (err as Error).message.split('\n')[0], warning: `Chromium does not start: ${CHROMIUM_FEATURES}. Fix: ${INSTALL_HINT}` });
    }
  } else {
    checks.push({ name: 'playwright-browser', ok: true, detail: 'skipped: Chromium is unavailable' });
  }
  checks.push(launched ? await fontLoadCheck() : { name: 'font-load', ok: true, detail: 'skipped: Chromium is unavailable (the report page loads the fonts)' });
  checks.push(ffmpegCheck());
  return checks;
}

function rasteriserCheck(): DoctorCheck {
  try {
    // Loads @napi-rs/canvas and registers the primary font, as the first screenshot does.
    const e = rasterEngine();
    return { name: 'rasteriser', ok: true, detail: `${e.backend} ${e.version}, @napi-rs/canvas ${e['@napi-rs/canvas']}, no browser` };
  } catch (err) {
    return { name: 'rasteriser', ok: false, detail: (err as Error).message, fix: 'npm install @napi-rs/canvas (an optional dependency of tapedeck with prebuilt packages for Linux, macOS and Windows on x64 and arm64)' };
  }
}

function fontPackagesCheck(): DoctorCheck {
  try {
    primaryFontFile();
  } catch (err) {
    return { name: 'font-package', ok: false, detail: (err as Error).message, fix: 'npm install dejavu-fonts-ttf (an optional dependency of tapedeck)' };
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
      return { name: 'screenshot-export', ok: false, detail: `the test screenshot is blank (${ink} lit pixels of ${img.width}x${img.height})`, fix: 'run with TAPEDECK_DEBUG=1 and report the platform and @napi-rs/canvas version' };
    }
    return { name: 'screenshot-export', ok: true, detail: `${img.width}x${img.height} px, ${shot.png.length} bytes, no browser` };
  } catch (err) {
    return { name: 'screenshot-export', ok: false, detail: (err as Error).message, fix: 'npm install @napi-rs/canvas dejavu-fonts-ttf (optional dependencies of tapedeck, skipped by npm install --omit=optional)' };
  } finally {
    screen.dispose();
  }
}

/** Asks the report's page whether the pinned font actually loaded (not a silent fallback). */
async function fontLoadCheck(): Promise<DoctorCheck> {
  try {
    const { page } = await rendererPage();
    const font = `${PROFILES[DEFAULT_PROFILE].fontSize}px "DejaVu Sans Mono"`;
    const loaded = await page.evaluate(async (f) => {
      await document.fonts.load(f);
      return [...document.fonts].filter((face) => face.family.replace(/["']/g, '') === 'DejaVu Sans Mono' && face.status === 'loaded').length;
    }, font);
    if (loaded < 1) return { name: 'font-load', ok: false, detail: 'DejaVu Sans Mono did not load in the page', fix: 'npm install (reinstall dejavu-fonts-ttf)' };
    return { name: 'font-load', ok: true, detail: `DejaVu Sans Mono loaded in the browser (${loaded} face${loaded === 1 ? '' : 's'})` };
  } catch (err) {
    return { name: 'font-load', ok: false, detail: (err as Error).message, fix: 'npm install (reinstall dejavu-fonts-ttf)' };
  }
}

function ffmpegCheck(): DoctorCheck {
  const name = process.env.TAPEDECK_FFMPEG || 'ffmpeg';
  const dirs = isAbsolute(name) ? [''] : (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const dir of dirs) {
    const file = dir ? join(dir, name) : name;
    try {
      accessSync(file, constants.X_OK);
      return { name: 'ffmpeg', ok: true, detail: `${file} (${FFMPEG_FEATURES})` };
    } catch {
      // next
    }
  }
  return { name: 'ffmpeg', ok: true, detail: `${name} not found`, warning: `no ffmpeg: ${FFMPEG_FEATURES}. Fix: apt-get install -y ffmpeg, or set TAPEDECK_FFMPEG` };
}
