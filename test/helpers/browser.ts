import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumPath } from '../../src/render/browser/browser.js';

/**
 * A browser for a test that opens pages itself (exported players, reports): the suite's
 * shared Chromium (global-setup.ts) when there is one, else a fresh launch. close() then
 * only disconnects, dropping the contexts this test made.
 */
export async function testBrowser(): Promise<Browser> {
  const endpoint = process.env.TAPEDECK_BROWSER_ENDPOINT;
  if (endpoint) return chromium.connect(endpoint, { timeout: 30_000 });
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}
