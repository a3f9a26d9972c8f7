import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { TapedeckError } from '../../core/diagnostics/errors.js';

/**
 * The pinned fonts, all from npm packages (never system fonts):
 *   dejavu-fonts-ttf        DejaVu Sans Mono: Latin, Greek, Cyrillic, box drawing, blocks, braille
 *   @fontsource/noto-emoji  monochrome emoji (colour emoji rasterise less predictably)
 *   @fontsource/noto-sans-sc CJK ideographs and kana; split by unicode-range, loaded lazily
 * The page asks for them by URL under /fonts/<package>/..., served from node_modules.
 */
const require = createRequire(import.meta.url);

export interface FontPackage {
  /** The npm package name. */
  name: string;
  /** The first path segment of its URLs in the page. */
  urlName: string;
  /** The CSS family the page uses. */
  family: string;
  /** The stylesheet the page links (under /fonts/<urlName>/). */
  stylesheet: string;
}

export const FONT_PACKAGES: readonly FontPackage[] = [
  { name: 'dejavu-fonts-ttf', urlName: 'dejavu', family: 'DejaVu Sans Mono', stylesheet: 'tapedeck.css' },
  { name: '@fontsource/noto-emoji', urlName: 'noto-emoji', family: 'Noto Emoji', stylesheet: '400.css' },
  { name: '@fontsource/noto-sans-sc', urlName: 'noto-sans-sc', family: 'Noto Sans SC', stylesheet: '400.css' },
];

/** DejaVu ships plain TTFs and no CSS: tapedeck writes the @font-face rules itself. */
export const DEJAVU_CSS = [
  ['normal', 'normal', 'DejaVuSansMono.ttf'],
  ['bold', 'normal', 'DejaVuSansMono-Bold.ttf'],
  ['normal', 'italic', 'DejaVuSansMono-Oblique.ttf'],
  ['bold', 'italic', 'DejaVuSansMono-BoldOblique.ttf'],
]
  .map(([weight, style, file]) => `@font-face { font-family: 'DejaVu Sans Mono'; font-weight: ${weight}; font-style: ${style}; font-display: block; src: url(./ttf/${file}) format('truetype'); }`)
  .join('\n');

/** The package's root folder, or null when it is not installed. */
export function packageDir(name: string): string | null {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    return null;
  }
}

export function packageVersion(name: string): string | null {
  const dir = packageDir(name);
  if (!dir) return null;
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The path of the primary monospace font, the one every screenshot needs. */
export function primaryFontFile(): string {
  const dir = packageDir('dejavu-fonts-ttf');
  const file = dir && join(dir, 'ttf', 'DejaVuSansMono.ttf');
  if (!file || !existsSync(file)) {
    throw new TapedeckError('RENDERER_UNAVAILABLE', 'the pinned font package dejavu-fonts-ttf is not installed. Fix: npm install (it is a dependency of tapedeck)', {
    });
  }
  return file;
}

/** Versions of every font package (null when missing), for the render profile hash and doctor. */
export function fontVersions(): Record<string, string | null> {
  return Object.fromEntries(FONT_PACKAGES.map((p) => [p.name, packageVersion(p.name)]));
}
