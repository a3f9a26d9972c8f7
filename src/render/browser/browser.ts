import { existsSync, mkdtempSync } from 'node:fs';
import { problemWithSharedDir } from '../../core/files/shared-dir.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserType } from 'playwright-core';
import { writeFileAtomic } from '../../core/files/atomic-write.js';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { packageDir } from './fonts.js';
import { optionalPackage } from '../../core/lazy-package.js';

/**
 * The one Chromium of this process: launched on first use, shared by every
 * screenshot, closed by closeBrowser() (tests, CLI) or, failing that, killed by
 * Playwright's own process-exit hook.
 *
 * TAPEDECK_CHROMIUM overrides the executable (default /usr/bin/chromium, as
 * Debian's `chromium` package installs it); AGENT_TTY_BROWSER_PATH (seed 002)
 * is read too. TAPEDECK_BROWSER_ENDPOINT names a running Playwright browser
 * server (`ws://…`, from `launchBrowserServer`) to connect to instead of
 * launching one: many short CLI runs (a test suite) then share one Chromium.
 */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // Determinism: the same greyscale, unhinted glyphs and sRGB output on every machine.
  '--font-render-hinting=none',
  '--disable-lcd-text',
  '--force-color-profile=srgb',
  '--hide-scrollbars',
];

export const INSTALL_HINT = 'install Chromium (Debian: apt-get update && apt-get install -y --no-install-recommends chromium), or point TAPEDECK_CHROMIUM at a Chromium binary';

export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.TAPEDECK_CHROMIUM || env.AGENT_TTY_BROWSER_PATH || DEFAULT_CHROMIUM;
}

let launching: Promise<Browser> | null = null;

/**
 * playwright-core is large: loaded on the first screenshot, so `import 'tapedeck'` stays light.
 * Through require, not import(): importing a CommonJS package from ESM makes Node scan its
 * multi-megabyte bundle for export names first (about 0.4 s of CPU per process).
 */
const playwright = optionalPackage<typeof import('playwright-core')>('playwright-core');

async function chromium(): Promise<BrowserType> {
  return playwright().chromium;
}

/** The shared browser, launched now if needed. Throws RENDERER_UNAVAILABLE (exit 6) with a fix. */
export function getBrowser(): Promise<Browser> {
  if (!launching) {
    const current: Promise<Browser> = launch().then(
      (browser) => {
        // A browser that crashed or was killed is forgotten, so the next screenshot starts a new one.
        browser.on('disconnected', () => {
          if (launching === current) launching = null;
        });
        return browser;
      },
      (err) => {
        launching = null;
        throw err;
      },
    );
    launching = current;
  }
  return launching;
}

export async function closeBrowser(): Promise<void> {
  const pending = launching;
  launching = null;
  if (!pending) return;
  const browser = await pending.catch(() => null);
  await browser?.close().catch(() => {});
}

async function launch(): Promise<Browser> {
  const endpoint = process.env.TAPEDECK_BROWSER_ENDPOINT;
  if (endpoint) return connect(endpoint);
  const executablePath = chromiumPath();
  if (!existsSync(executablePath)) {
    throw new TapedeckError('RENDERER_UNAVAILABLE', `Chromium not found at ${executablePath}. Fix: ${INSTALL_HINT}`, {
      details: { executablePath },
    });
  }
  try {
    return await (await chromium()).launch({
      executablePath,
      args: CHROMIUM_ARGS,
      env: { ...process.env, ...isolatedFontconfig() },
      timeout: 30_000,
    });
  } catch (err) {
    const first = String((err as Error)?.message ?? err).split('\n')[0];
    throw new TapedeckError('RENDERER_UNAVAILABLE', `Chromium at ${executablePath} did not start: ${first}. Fix: ${INSTALL_HINT}`, {
      details: { executablePath },
      cause: err,
    });
  }
}

async function connect(endpoint: string): Promise<Browser> {
  try {
    return await (await chromium()).connect(endpoint, { timeout: 30_000 });
  } catch (err) {
    const first = String((err as Error)?.message ?? err).split('\n')[0];
    throw new TapedeckError('RENDERER_UNAVAILABLE', `no browser at TAPEDECK_BROWSER_ENDPOINT=${endpoint}: ${first}. Fix: start it again, or unset TAPEDECK_BROWSER_ENDPOINT to launch Chromium`, {
      details: { endpoint },
      cause: err,
    });
  }
}

/**
 * Starts a Chromium that other processes share through TAPEDECK_BROWSER_ENDPOINT,
 * launched exactly as getBrowser() would launch its own. Close it when done.
 */
export async function launchBrowserServer(): Promise<{ wsEndpoint: string; close: () => Promise<void> }> {
  const server = await (await chromium()).launchServer({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, env: { ...process.env, ...isolatedFontconfig() }, timeout: 30_000 });
  return { wsEndpoint: server.wsEndpoint(), close: () => server.close() };
}

/**
 * A fontconfig that knows only the npm DejaVu files: a glyph missing from every
 * web font then falls back to DejaVu (or a box), never to whatever fonts this
 * machine happens to have, so screenshots don't vary with the system.
 */
function isolatedFontconfig(): Record<string, string> {
  const dejavu = packageDir('dejavu-fonts-ttf');
  if (!dejavu) return {};
  const shared = join(tmpdir(), `tapedeck-fontconfig-${process.getuid?.() ?? 'user'}`);
  // Under a parent others write to: ours alone, else a fresh private one (its font cache is rebuilt).
  const dir = problemWithSharedDir(shared) ? mkdtempSync(join(tmpdir(), 'tapedeck-fontconfig-')) : shared;
  const file = join(dir, 'fonts.conf');
  const conf = `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>${join(dejavu, 'ttf')}</dir>
  <cachedir>${join(dir, 'cache')}</cachedir>
  <config></config>
</fontconfig>
`;
  writeFileAtomic(file, conf); // parallel workers write the same bytes; never a half file
  return { FONTCONFIG_FILE: file, FONTCONFIG_PATH: dir };
}
