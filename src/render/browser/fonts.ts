import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packagePath } from '../../core/package-root.js';
import { findPackageDir, optionalPackageDir, optionalPackageMissing } from '../../core/lazy-package.js';

/**
 * The pinned fonts, all from npm packages (never system fonts):
 *   dejavu-fonts-ttf        DejaVu Sans Mono: Latin, Greek, Cyrillic, box drawing, blocks, braille
 *   @fontsource/noto-emoji  monochrome emoji (colour emoji rasterise less predictably)
 *   @fontsource/noto-sans-sc CJK ideographs and kana; split by unicode-range, loaded lazily
 * The page asks for them by URL under /fonts/<package>/..., served from the package
 * (dejavu-fonts-ttf, an optional dependency) or from the copy tapedeck carries (@fontsource).
 */

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

/**
 * The package's root folder, or null when it is not installed. The @fontsource fonts
 * come with tapedeck, trimmed to the 400 normal faces the renderers read
 * (scripts/vendor-fonts.mjs, into dist/fonts/); a checkout without a build reads
 * them from node_modules (they are devDependencies).
 */
export function packageDir(name: string): string | null {
  if (name.startsWith('@fontsource/')) {
    const vendored = packagePath(`dist/fonts/${name}`);
    if (existsSync(join(vendored, '400.css'))) return vendored;
  }
  return findPackageDir(name);
}

export function packageVersion(name: string): string | null {
  const dir = packageDir(name);
  if (!dir) return null;
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The path of the primary monospace font, the one every screenshot needs. */
export function primaryFontFile(): string {
  const file = join(optionalPackageDir('dejavu-fonts-ttf'), 'ttf', 'DejaVuSansMono.ttf');
  if (!existsSync(file)) throw optionalPackageMissing('dejavu-fonts-ttf');
  return file;
}

/** Versions of every font package (null when missing), for the render profile hash and doctor. */
export function fontVersions(): Record<string, string | null> {
  return Object.fromEntries(FONT_PACKAGES.map((p) => [p.name, packageVersion(p.name)]));
}
