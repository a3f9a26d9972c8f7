import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TestProject } from 'vitest/node';
import type {} from './helpers/packed.js';

/**
 * Tests drive the built CLI: make sure dist/ matches src/ before any runs. Then one
 * Chromium for the whole run, which every test process and every CLI process it starts
 * connects to (TAPEDECK_BROWSER_ENDPOINT) instead of launching its own. And a folder for
 * the run's packed tarball and install, which test/helpers/packed.ts makes when first asked.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync('bash', ['scripts/build-if-stale.sh'], { stdio: 'inherit' });
  const root = resolve(import.meta.dirname, '..');
  const { launchBrowserServer } = (await import(pathToFileURL(join(root, 'dist/render/browser/browser.js')).href)) as typeof import('../src/render/browser/browser.js');
  const server = await launchBrowserServer();
  process.env.TAPEDECK_BROWSER_ENDPOINT = server.wsEndpoint;
  const packDir = mkdtempSync(join(tmpdir(), 'tapedeck-packed-'));
  project.provide('tapedeckPackDir', packDir);
  return async () => {
    delete process.env.TAPEDECK_BROWSER_ENDPOINT;
    rmSync(packDir, { recursive: true, force: true });
    await server.close();
  };
}
