import { describe, expect, it } from 'vitest';
import { tapedeck, tempDir } from './helpers/cli.js';

describe('tapedeck doctor', () => {
  it('passes every check on this machine (exit 0)', async () => {
    const home = tempDir('tapedeck-doctor-');
    try {
      const r = await tapedeck(['doctor', '--json'], { env: { TAPEDECK_HOME: home.dir } });
      expect(r.code, r.stdout).toBe(0);
      const { result } = JSON.parse(r.stdout);
      expect(result.ok).toBe(true);
      expect(result.checks.map((c: { name: string }) => c.name)).toEqual([
        'home-directory', 'pty-spawn', 'control-socket', 'terminfo', 'chromium-found', 'font-package', 'playwright-browser', 'font-load', 'screenshot-export',
      ]);
      for (const c of result.checks) expect(c, c.name).toMatchObject({ ok: true });
      expect(result.checks.find((c: { name: string }) => c.name === 'font-load').detail).toMatch(/DejaVu Sans Mono loaded/);
    } finally {
      home.cleanup();
    }
  });

  it('reports a missing Chromium and an unwritable home with their fixes (exit 8)', async () => {
    // A file where the home directory should be (root may write anywhere, so not a permission test).
    const r = await tapedeck(['doctor'], { env: { TAPEDECK_CHROMIUM: '/nonexistent', TAPEDECK_HOME: '/etc/hostname' } });
    expect(r.code).toBe(8);
    expect(r.stdout).toMatch(/^FAIL home-directory: \/etc\/hostname is not a directory\n {5}fix: remove \/etc\/hostname or set TAPEDECK_HOME/m);
    expect(r.stdout).toMatch(/^FAIL chromium-found: no file at \/nonexistent\n {5}fix: install Chromium/m);
    expect(r.stdout).toMatch(/^FAIL screenshot-export: skipped: Chromium is unavailable/m);
    expect(r.stdout).toMatch(/^ok {3}pty-spawn/m);
  });
});
