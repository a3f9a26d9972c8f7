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
        'home-directory', 'pty-spawn', 'control-socket', 'terminfo', 'temp-files', 'chromium-found', 'font-package', 'playwright-browser', 'font-load', 'screenshot-export',
      ]);
      for (const c of result.checks) expect(c, c.name).toMatchObject({ ok: true });
      expect(result.checks.find((c: { name: string }) => c.name === 'font-load').detail).toMatch(/DejaVu Sans Mono loaded/);
      expect(result.checks.find((c: { name: string }) => c.name === 'temp-files').detail).toMatch(/^removed [1-9]\d* left by killed runs$/);
      expect(existsSync(join(owned, '4194399-0badc0de-cast'))).toBe(false);
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

  it('--json says ok:false in a failure envelope when it exits 8; a home others can write fails (seed 002 §19)', async () => {
    const home = tempDir('tapedeck-doctor-open-');
    try {
      chmodSync(home.dir, 0o777);
      const r = await tapedeck(['doctor', '--json'], { env: { TAPEDECK_HOME: home.dir, TAPEDECK_CHROMIUM: '/nonexistent' } });
      expect(r.code).toBe(8);
      const env = JSON.parse(r.stdout);
      expect(env).toMatchObject({ ok: false, command: 'doctor', error: { code: 'INTERNAL_ERROR', retryable: false, details: { ok: false, exitCode: 8 } } });
      expect(env.error.message).toMatch(/^\d+ check\(s\) failed: home-directory, chromium-found/);
      const check = env.error.details.checks.find((c: { name: string }) => c.name === 'home-directory');
      expect(check).toMatchObject({ ok: false, detail: `${home.dir} is writable by everyone (mode 777)`, fix: `chmod 700 ${home.dir}` });
    } finally {
      home.cleanup();
    }
  });
});
