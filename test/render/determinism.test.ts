/**
 * No system font, fontconfig file, locale, time zone, home directory or
 * browser may change a pixel: the same cast gives the same PNG bytes from
 * fresh `tapedeck screenshot` processes whatever the environment, with a decoy
 * "DejaVu Sans Mono" installed where a font library would find it, a
 * fontconfig file that aliases the family to another font, and Chromium made
 * unreachable (bind-mounted away in a private mount namespace when this runs
 * as root, and off PATH with TAPEDECK_CHROMIUM pointing nowhere always).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, ROOT, run, tempDir } from '../helpers/cli.js';
import { aliasingFontconfig, decoyFont } from '../helpers/decoy-font.js';

const temp = tempDir('tapedeck-render-det-');
afterAll(() => temp.cleanup());

const E = '\x1b';
const SCREEN = [
  `plain ${E}[1mbold${E}[0m ${E}[3mitalic${E}[0m ${E}[2mdim${E}[0m ${E}[4:3;58;5;196mcurly${E}[0m ${E}[7minverse${E}[0m ${E}[9mstrike${E}[0m\r\n`,
  `${Array.from({ length: 24 }, (_, i) => `${E}[48;5;${16 + i * 9}m ${E}[48;2;${i * 10};90;${250 - i * 10}m `).join('')}${E}[0m\r\n`,
  '┌──┬──┐ ╔══╗ ▀▄█░▒▓ ⣿⡇⠛ \ue0b0\ue0b2 中文 日本語 😀 👨‍💻 e\u0301 \u{10ffff}\r\n',
  'Greek Ελληνικά Кириллица ½ → ✓\r\n',
].join('');

function writeCast(): string {
  const file = join(temp.dir, 'screen.cast');
  const header = { version: 2, width: 60, height: 6 };
  writeFileSync(file, `${JSON.stringify(header)}\n${JSON.stringify([0.1, 'o', SCREEN])}\n`);
  return file;
}

/** A home with the decoy where FreeType-based libraries look (~/.fonts, ~/.local/share/fonts) and a fontconfig file beside it. */
function hostileHome(name: string): { home: string; fontconfig: string } {
  const home = join(temp.dir, name);
  const decoy = decoyFont();
  for (const dir of [join(home, '.fonts'), join(home, '.local/share/fonts')]) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'DejaVuSansMono.ttf'), decoy);
  }
  const fontconfig = join(home, 'fonts.conf');
  writeFileSync(fontconfig, aliasingFontconfig(join(home, '.fonts')));
  mkdirSync(join(home, '.config/fontconfig'), { recursive: true });
  writeFileSync(join(home, '.config/fontconfig/fonts.conf'), aliasingFontconfig(join(home, '.fonts')));
  return { home, fontconfig };
}

const canUnshare = process.getuid?.() === 0 && existsSync('/usr/bin/chromium') && spawnSync('/usr/bin/unshare', ['-m', '/bin/true']).status === 0;

async function screenshot(cast: string, out: string, env: NodeJS.ProcessEnv, hideChromium: boolean) {
  const node = process.execPath;
  const args = [CLI, 'screenshot', cast, '--out', out];
  // A private mount namespace in which /usr/bin/chromium is /dev/null: no browser could start.
  const command = hideChromium && canUnshare ? ['/usr/bin/unshare', '-m', '/bin/sh', '-c', '/usr/bin/mount --bind /dev/null /usr/bin/chromium && exec "$@"', 'sh', node, ...args] : [node, ...args];
  return run(command, { env: { TAPEDECK_CHROMIUM: '/nonexistent/chromium', PATH: '/nonexistent', ...env } });
}

describe('the same PNG bytes in every environment', () => {
  it('the decoy is real: the same library with its system fonts on finds it under "DejaVu Sans Mono"; tapedeck registers only its own', async () => {
    const { home } = hostileHome('probe-home');
    const script = `const { GlobalFonts } = require('@napi-rs/canvas');
      process.stdout.write(JSON.stringify(GlobalFonts.families.filter((f) => f.family === 'DejaVu Sans Mono').flatMap((f) => f.styles.map((s) => s.weight))));`;
    const decoyed = await run([process.execPath, '-e', script], { cwd: ROOT, env: { HOME: home } });
    expect(decoyed.code, decoyed.stderr).toBe(0);
    expect(JSON.parse(decoyed.stdout)).toContain(500);
    const ours = `import('./dist/render/raster/index.js').then(async ({ renderScreenPng }) => {
      const { Screen } = await import('./dist/session/screen/screen.js');
      const s = new Screen({ rows: 2, cols: 20 }); await s.write('Ag1 中文 😀 ─');
      renderScreenPng(s.snapshot({ includeCells: true }));
      const { GlobalFonts } = require('@napi-rs/canvas');
      process.stdout.write(JSON.stringify(GlobalFonts.families));
    });`;
    const r = await run([process.execPath, '--input-type=commonjs', '-e', ours], { cwd: ROOT, env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    // Skia lists a registered font under tapedeck's name and its own; the system's DejaVu Sans, Serif and the decoy are absent.
    const families: Array<{ family: string; styles: Array<{ weight: number }> }> = JSON.parse(r.stdout);
    expect(families.filter((f) => f.family.startsWith('tapedeck-mono-')).length).toBe(4);
    expect(families.filter((f) => !f.family.startsWith('tapedeck-')).map((f) => f.family).sort()).toEqual(['DejaVu Sans Mono', 'Noto Emoji', 'Noto Sans SC']);
    expect(families.find((f) => f.family === 'DejaVu Sans Mono')!.styles.map((s) => s.weight)).not.toContain(500);
  });

  it('10 fresh processes, LANG/LC_ALL/TZ/HOME varied, decoy font and aliasing fontconfig, Chromium unreachable: one PNG', async () => {
    const cast = writeCast();
    const variants: NodeJS.ProcessEnv[] = [
      { HOME: join(temp.dir, 'plain-home'), LANG: 'C.UTF-8', TZ: 'UTC' },
      { LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8', TZ: 'Europe/Istanbul' },
      { LANG: 'ja_JP.UTF-8', LC_ALL: 'ja_JP.UTF-8', TZ: 'Asia/Tokyo' },
      { LANG: 'POSIX', LC_ALL: 'C', TZ: 'America/Los_Angeles' },
      { LANG: 'de_DE.ISO-8859-1', LC_ALL: 'de_DE.ISO-8859-1', TZ: 'Pacific/Chatham' },
      { LANG: 'ar_EG.UTF-8', LC_ALL: 'ar_EG.UTF-8', TZ: 'Africa/Cairo' },
      { LANG: 'zh_CN.GB18030', TZ: 'Asia/Shanghai' },
      { LANG: '', LC_ALL: '', TZ: '' },
      { LANG: 'en_US.UTF-8', TZ: 'Etc/GMT+12' },
      { LANG: 'he_IL.UTF-8', LC_ALL: 'he_IL.UTF-8', TZ: 'Asia/Jerusalem' },
    ];
    const shoot = async (i: number) => {
      const { home, fontconfig } = hostileHome(`home-${i}`);
      const env = { HOME: home, FONTCONFIG_FILE: fontconfig, FONTCONFIG_PATH: join(home, '.config/fontconfig'), XDG_CONFIG_HOME: join(home, '.config'), ...variants[i] };
      const out = join(temp.dir, `shot-${i}.png`);
      const r = await screenshot(cast, out, env, i % 2 === 1);
      expect(r.code, `variant ${i}: ${r.stderr}`).toBe(0);
      return createHash('sha256').update(readFileSync(out)).digest('hex');
    };
    // Two at a time (the machine has two cores).
    const hashes: string[] = [];
    for (let i = 0; i < variants.length; i += 2) hashes.push(...(await Promise.all([shoot(i), shoot(i + 1)])));
    expect(new Set(hashes).size, hashes.join('\n')).toBe(1);
  }, 180_000);
});
