import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Tests drive the built CLI: make sure dist/ matches src/ before any runs. Then one
 * Chromium for the whole run, which every test process and every CLI process it starts
 * connects to (TAPEDECK_BROWSER_ENDPOINT) instead of launching its own.
 */
export default async function setup(): Promise<() => Promise<void>> {
  execFileSync('bash', ['scripts/build-if-stale.sh'], { stdio: 'inherit' });
  const root = resolve(import.meta.dirname, '..');
  const { launchBrowserServer } = (await import(pathToFileURL(join(root, 'dist/render/browser/browser.js')).href)) as typeof import('../src/render/browser/browser.js');
  const server = await launchBrowserServer();
  process.env.TAPEDECK_BROWSER_ENDPOINT = server.wsEndpoint;
  return async () => {
    delete process.env.TAPEDECK_BROWSER_ENDPOINT;
    await server.close();
  };
}
