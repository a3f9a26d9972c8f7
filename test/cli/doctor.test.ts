import { describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tapedeck, tempDir } from '../helpers/cli.js';

describe('tapedeck doctor', () => {
  it('passes every check on this machine (exit 0)', async () => {
    const home = tempDir('tapedeck-doctor-');
    try {
      // A temp file a killed run left (pid 4194399 is past pid_max: dead) is swept.
      const owned = join(home.dir, `tapedeck-${process.getuid?.() ?? 'user'}`);
      mkdirSync(owned, { recursive: true });
      writeFileSync(join(owned, '4194399-0badc0de-cast'), 'left behind');
      const r = await tapedeck(['doctor', '--json'], { env: { TAPEDECK_HOME: home.dir, TMPDIR: home.dir } });
      expect(r.code, r.stdout).toBe(0);
      const { result } = JSON.parse(r.stdout);
      expect(result.ok).toBe(true);
      expect(result.checks.map((c: { name: string }) => c.name)).toEqual([
        'home-directory', 'pty-spawn', 'control-socket', 'terminfo', 'temp-files', 'rasteriser', 'font-package', 'screenshot-export', 'chromium-found', 'playwright-browser', 'font-load', 'ffmpeg',
      ]);
      for (const c of result.checks) expect(c, c.name).toMatchObject({ ok: true });
      expect(result.checks.find((c: { name: string }) => c.name === 'font-load').detail).toMatch(/DejaVu Sans Mono loaded/);
      expect(result.checks.find((c: { name: string }) => c.name === 'temp-files').detail).toMatch(/^removed [1-9]\d* left by killed runs$/);
      expect(existsSync(join(owned, '4194399-0badc0de-cast'))).toBe(false);
    } finally {
      home.cleanup();
    }
  });

  it('reports an unwritable home with its fix (exit 8); a missing Chromium or ffmpeg only warns, naming what needs it', async () => {
    // A file where the home directory should be (root may write anywhere, so not a permission test).
    const r = await tapedeck(['doctor'], { env: { TAPEDECK_CHROMIUM: '/nonexistent', TAPEDECK_FFMPEG: '/nonexistent-ffmpeg', TAPEDECK_HOME: '/etc/hostname' } });
    expect(r.code).toBe(8);
    expect(r.stdout).toMatch(/^FAIL home-directory: \/etc\/hostname is not a directory\n {5}fix: remove \/etc\/hostname or set TAPEDECK_HOME/m);
    expect(r.stdout).toMatch(/^warn chromium-found: no file at \/nonexistent\n {5}no Chromium: the HTML report and its player \(tapedeck report\) need it; screenshots, screenshot goldens, report images and webm frames do not\. Fix: install Chromium/m);
    expect(r.stdout).toMatch(/^warn ffmpeg: \/nonexistent-ffmpeg not found\n {5}no ffmpeg: export --format webm needs it/m);
    expect(r.stdout).toMatch(/^ok {3}screenshot-export: \d+x\d+ px, \d+ bytes, no browser/m);
    expect(r.stdout).toMatch(/^ok {3}pty-spawn/m);
  });

  it('passes without Chromium and without ffmpeg (exit 0): screenshots need neither', async () => {
    const home = tempDir('tapedeck-doctor-');
    try {
      const r = await tapedeck(['doctor', '--json'], { env: { TAPEDECK_HOME: home.dir, TAPEDECK_CHROMIUM: '/nonexistent', TAPEDECK_FFMPEG: '/nonexistent-ffmpeg' } });
      expect(r.code, r.stdout).toBe(0);
      const { result } = JSON.parse(r.stdout);
      const byName = Object.fromEntries(result.checks.map((c: { name: string }) => [c.name, c]));
      expect(byName['screenshot-export']).toMatchObject({ ok: true });
      expect(byName['rasteriser'].detail).toMatch(/^tapedeck-raster \d+, @napi-rs\/canvas 1\.1\.1, no browser$/);
      expect(byName['chromium-found'].warning).toMatch(/HTML report/);
      expect(byName['ffmpeg'].warning).toMatch(/webm/);
    } finally {
      home.cleanup();
    }
  });

  it('--json says ok:false in a failure envelope when it exits 8; a home others can write fails (seed 002 §19)', async () => {
    const home = tempDir('tapedeck-doctor-open-');
    try {
      chmodSync(home.dir, 0o777);
      const r = await tapedeck(['doctor', '--json'], { env: { TAPEDECK_HOME: home.dir, TAPEDECK_CHROMIUM: '/nonexistent' } });
      expect(r.code).toBe(8);
      const env = JSON.parse(r.stdout);
      expect(env).toMatchObject({ ok: false, command: 'doctor', error: { code: 'INTERNAL_ERROR', retryable: false, details: { ok: false, exitCode: 8 } } });
      expect(env.error.message).toMatch(/^\d+ check\(s\) failed: home-directory$/);
      const check = env.error.details.checks.find((c: { name: string }) => c.name === 'home-directory');
      expect(check).toMatchObject({ ok: false, detail: `${home.dir} is writable by everyone (mode 777)`, fix: `chmod 700 ${home.dir}` });
    } finally {
      home.cleanup();
    }
  });
});
