import type { FileLocation } from '../../core/diagnostics/errors.js';
import { limit, limitError } from '../../core/config/limits.js';
import { readFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import type { BrowserContext, CDPSession, Page, Route } from 'playwright-core';
import { closeAtShutdown } from '../../plumbing/process/shutdown.js';
import { closeBrowser, getBrowser } from './browser.js';
import { DEJAVU_CSS, FONT_PACKAGES, fontVersions, packageDir, packageVersion } from './fonts.js';
import { repaint, type RepaintOptions } from './repaint.js';
import { PAGE_HTML, PAGE_ORIGIN, type PagePayload, type PageResult } from './page/harness.js';
import { renderProfileHash, resolveProfile, type RenderProfile } from '../profiles.js';
import type { ScreenSnapshot } from '../../session/screen/screen.js';

/**
 * The browser renderer: one page in the shared Chromium, reused for every
 * screenshot (renders are queued, one at a time), painting a screen with
 * xterm.js and capturing it with CDP's Page.captureScreenshot at device scale 1.
 */
export const BROWSER_BACKEND = 'xterm-dom-chromium';

export interface RenderOptions extends RepaintOptions {
  /** A built-in profile name (reference-dark, reference-light; aliases dark, light) or a profile object; default reference-dark (or TAPEDECK_PROFILE). */
  profile?: string | RenderProfile;
  /** The tape the screen comes from, named when it is too large to render. */
  source?: FileLocation;
}

// The same result shape as the raster renderer's, so the tests compare the two renderers' output directly.
export type { RenderedPng } from '../raster/render.js';
import type { RenderedPng } from '../raster/render.js';

interface Harness {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  engine: Record<string, string>;
  viewport: { width: number; height: number };
  /** The payload the page shows now (JSON) and its size; unset when unknown. */
  shown?: { key: string; size: PageResult };
}

let harness: Promise<Harness> | null = null;
let queue: Promise<unknown> = Promise.resolve();

/** Renders a snapshot taken with `includeCells: true` to PNG bytes. */
export async function renderSnapshot(snap: ScreenSnapshot, options: RenderOptions = {}): Promise<RenderedPng> {
  const profile = resolveProfile(options.profile);
  checkPixelSize(snap, profile, options.source);
  const painted = repaint(snap, options);
  const job = queue.then(async () => {
    const h = await getHarness();
    const payload: PagePayload = {
      cols: snap.cols,
      rows: snap.rows,
      data: painted.data,
      extraChars: painted.extraChars,
      theme: themeFor(profile),
      fontFamily: profile.fontFamily,
      fontSize: profile.fontSize,
      lineHeight: profile.lineHeight,
      padding: profile.padding,
      cursorStyle: snap.cursorStyle ?? 'block',
    };
    const size = await paint(h, payload);
    const png = await capture(h, size);
    return {
      png,
      pixelWidth: size.width,
      pixelHeight: size.height,
      cursorVisible: painted.cursorVisible,
      profileName: profile.name,
      rendererBackend: BROWSER_BACKEND,
      renderProfileHash: renderProfileHash(profile, h.engine),
    };
  });
  queue = job.catch(() => {});
  return job;
}

/**
 * Paints the payload unless the page shows it already: painting the same
 * screen again gives the same page (the byte-identical-PNG test holds it to
 * that), so only the capture is repeated.
 */
async function paint(h: Harness, payload: PagePayload): Promise<PageResult> {
  const key = JSON.stringify(payload);
  if (h.shown?.key === key) return h.shown.size;
  h.shown = undefined; // a paint that fails leaves the page unknown
  const size = await h.page.evaluate((p) => (window as unknown as { tapedeckRender(p: PagePayload): Promise<PageResult> }).tapedeckRender(p), payload);
  h.shown = { key, size };
  return size;
}

/**
 * Refused before Chromium sees it: a 1x10000 screen is a 90,000-pixel-wide
 * page that took minutes, and Chromium cannot capture past 16384 pixels a side.
 * The size is estimated from the profile's font (a cell is at most 0.7 em wide).
 */
function checkPixelSize(snap: ScreenSnapshot, profile: RenderProfile, source?: FileLocation): void {
  const width = Math.ceil(2 * profile.padding + snap.cols * profile.fontSize * 0.7);
  const height = Math.ceil(2 * profile.padding + snap.rows * profile.fontSize * profile.lineHeight * 1.3);
  if (width > MAX_SIDE || height > MAX_SIDE || width * height > limit('maxScreenshotPixels')) {
    throw limitError('maxScreenshotPixels', `a ${snap.cols}x${snap.rows} screen is about ${width}x${height} pixels, too large to render (at most ${MAX_SIDE} a side)`, source);
  }
}
const MAX_SIDE = 16_384;

/** Chromium's own PNG of the page area, nothing else (the bench's baseline calls it too). */
export async function capture(h: { page: Page; cdp: CDPSession; viewport: { width: number; height: number } }, size: PageResult): Promise<Buffer> {
  if (h.viewport.width < size.width || h.viewport.height < size.height) {
    h.viewport = { width: Math.max(size.width, h.viewport.width), height: Math.max(size.height, h.viewport.height) };
    await h.page.setViewportSize(h.viewport);
  }
  const shot = await h.cdp.send('Page.captureScreenshot', {
    format: 'png',
    clip: { x: 0, y: 0, width: size.width, height: size.height, scale: 1 },
    captureBeyondViewport: false,
    fromSurface: true,
  });
  return Buffer.from(shot.data, 'base64');
}

/** The warmed-up page (for the bench's raw-capture baseline, doctor and tests). Whoever has it may change it: the next render paints afresh. */
export async function rendererPage(): Promise<Harness> {
  const h = await getHarness();
  h.shown = undefined;
  return h;
}

/** The engine versions the profile hash covers, without rendering anything. */
export async function rendererEngine(): Promise<Record<string, string>> {
  return (await getHarness()).engine;
}

/** Closes the page and the shared browser (tests, CLI exit). The next render starts a new one. */
export async function closeRenderer(): Promise<void> {
  const pending = harness;
  harness = null;
  await queue.catch(() => {});
  if (pending) await pending.then((h) => h.context.close()).catch(() => {});
  await closeBrowser();
}

function getHarness(): Promise<Harness> {
  if (!harness) {
    closeAtShutdown(closeRenderer);
    harness = openHarness().catch((err) => {
      harness = null;
      throw err;
    });
  }
  return harness;
}

async function openHarness(): Promise<Harness> {
  const browser = await getBrowser();
  const viewport = { width: 800, height: 600 };
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, colorScheme: 'dark', reducedMotion: 'reduce' });
  // A browser that goes away (crash, close) takes the page with it: start afresh next time.
  browser.once('disconnected', () => {
    harness = null;
  });
  await context.route('**/*', serveAsset);
  const page = await context.newPage();
  await page.goto(`${PAGE_ORIGIN}/`);
  await page.waitForFunction(() => typeof (window as unknown as { tapedeckRender?: unknown }).tapedeckRender === 'function');
  const cdp = await context.newCDPSession(page);
  const engine: Record<string, string> = {
    backend: BROWSER_BACKEND,
    chromium: browser.version(),
    xterm: packageVersion('@xterm/xterm') ?? 'missing',
    'addon-unicode11': packageVersion('@xterm/addon-unicode11') ?? 'missing',
  };
  for (const [name, version] of Object.entries(fontVersions())) engine[name] = version ?? 'missing';
  return { context, page, cdp, engine, viewport };
}

function themeFor(profile: RenderProfile): Record<string, unknown> {
  const names = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];
  const theme: Record<string, unknown> = {
    background: profile.theme.background,
    foreground: profile.theme.foreground,
    cursor: profile.theme.cursor,
    cursorAccent: profile.theme.cursorAccent,
  };
  profile.theme.ansi.forEach((rgb, i) => {
    const base = names[i % 8];
    theme[i < 8 ? base : `bright${base[0].toUpperCase()}${base.slice(1)}`] = rgb;
  });
  return theme;
}

const xtermDir = () => packageDir('@xterm/xterm');

/** Answers the page's requests from memory and node_modules; everything else is refused. */
async function serveAsset(route: Route): Promise<void> {
  const url = new URL(route.request().url());
  if (url.origin !== PAGE_ORIGIN) return route.abort('blockedbyclient');
  const path = decodeURIComponent(url.pathname);
  if (path === '/') return route.fulfill({ contentType: 'text/html; charset=utf-8', body: PAGE_HTML });
  if (path === '/fonts/dejavu/tapedeck.css') return route.fulfill({ contentType: 'text/css', body: DEJAVU_CSS });
  let file: string | null = null;
  let contentType = 'application/octet-stream';
  if (path === '/xterm.js') [file, contentType] = [join(xtermDir() ?? '', 'lib/xterm.js'), 'text/javascript'];
  else if (path === '/addon-unicode11.js') [file, contentType] = [join(packageDir('@xterm/addon-unicode11') ?? '', 'lib/addon-unicode11.js'), 'text/javascript'];
  else if (path === '/xterm.css') [file, contentType] = [join(xtermDir() ?? '', 'css/xterm.css'), 'text/css'];
  else {
    const m = /^\/fonts\/([^/]+)\/(.+)$/.exec(path);
    const pkg = m && FONT_PACKAGES.find((p) => p.urlName === m[1]);
    const dir = pkg && packageDir(pkg.name);
    const rest = m && normalize(m[2]);
    if (dir && rest && !rest.startsWith('..')) {
      file = join(dir, rest);
      contentType = rest.endsWith('.css') ? 'text/css' : rest.endsWith('.woff2') ? 'font/woff2' : rest.endsWith('.ttf') ? 'font/ttf' : 'font/woff';
    }
  }
  if (!file) return route.fulfill({ status: 404, body: '' });
  try {
    return await route.fulfill({ contentType, body: await readFile(file) });
  } catch {
    return route.fulfill({ status: 404, body: '' });
  }
}
