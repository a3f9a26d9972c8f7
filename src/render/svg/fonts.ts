import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { optionalPackage, optionalPackageDir } from '../../core/lazy-package.js';
import { packageDir } from '../browser/fonts.js';
import { readSfnt, type SfntInfo } from './sfnt.js';

/**
 * The pinned fonts as the SVG writer uses them: DejaVu Sans Mono's four faces,
 * then Noto Emoji and Noto Sans SC (split by @fontsource into files by
 * unicode-range). Each cluster on screen goes to the first font that maps
 * all its code points (the browser's fallback order), and only those fonts
 * are embedded, subset to what they draw, under names no system font has.
 */

export interface FontSource {
  /** The family name used in the SVG (never a system font's name). */
  family: string;
  /** CSS font-weight/font-style of the face. */
  weight: 'normal' | 'bold';
  style: 'normal' | 'italic';
  /** The file in node_modules (or in dist/fonts/, the @fontsource fonts tapedeck carries). */
  file: string;
  /** Code point ranges the file declares (the whole range for DejaVu). */
  ranges: readonly (readonly [number, number])[];
}

interface Loaded {
  bytes: Buffer;
  info: SfntInfo;
}

const loaded = new Map<string, Promise<Loaded>>();

function load(source: FontSource): Promise<Loaded> {
  let got = loaded.get(source.file);
  if (!got) {
    got = (async () => {
      const raw = readFileSync(source.file);
      const bytes = source.file.endsWith('.woff2') ? Buffer.from(await fontverter().convert(raw, 'truetype')) : raw;
      return { bytes, info: readSfnt(bytes) };
    })();
    loaded.set(source.file, got);
  }
  return got;
}

type Fontverter = { convert(buf: Uint8Array, format: 'truetype' | 'woff2'): Promise<Buffer> };
const fontverter = optionalPackage<Fontverter>('subset-font', 'fontverter');

function packagePath(name: 'dejavu-fonts-ttf' | '@fontsource/noto-emoji' | '@fontsource/noto-sans-sc', ...rest: string[]): string {
  if (name === 'dejavu-fonts-ttf') return join(optionalPackageDir(name), ...rest);
  const dir = packageDir(name);
  if (!dir) throw new TapedeckError('RENDERER_UNAVAILABLE', `the fonts of ${name} that come with tapedeck are missing. Fix: reinstall tapedeck (npm ci)`);
  return join(dir, ...rest);
}

let monoFaces: FontSource[] | undefined;
/** DejaVu Sans Mono: regular, bold, oblique, bold oblique. */
export function monoSources(): FontSource[] {
  monoFaces ??= (
    [
      ['normal', 'normal', 'DejaVuSansMono.ttf'],
      ['bold', 'normal', 'DejaVuSansMono-Bold.ttf'],
      ['normal', 'italic', 'DejaVuSansMono-Oblique.ttf'],
      ['bold', 'italic', 'DejaVuSansMono-BoldOblique.ttf'],
    ] as const
  ).map(([weight, style, file]) => ({ family: 'tdm', weight, style, file: packagePath('dejavu-fonts-ttf', 'ttf', file), ranges: [[0, 0x10ffff]] }));
  return monoFaces;
}

const fallbackCache = new Map<string, FontSource[]>();
/** The @fontsource files of a package (400 normal), in the order of its stylesheet. */
export function fallbackSources(pkg: '@fontsource/noto-emoji' | '@fontsource/noto-sans-sc', prefix: string): FontSource[] {
  let got = fallbackCache.get(pkg);
  if (got) return got;
  const css = readFileSync(packagePath(pkg, '400.css'), 'utf8');
  got = [];
  for (const m of css.matchAll(/url\(\.\/files\/([^)]+?\.woff2)\)[^;]*;\s*unicode-range:\s*([^;]+);/g)) {
    got.push({ family: `${prefix}${got.length}`, weight: 'normal', style: 'normal', file: packagePath(pkg, 'files', m[1]), ranges: parseRanges(m[2]) });
  }
  fallbackCache.set(pkg, got);
  return got;
}

export function parseRanges(text: string): [number, number][] {
  return text.split(',').map((part) => {
    const r = part.trim().replace(/^U\+/i, '');
    if (r.includes('?')) return [parseInt(r.replace(/\?/g, '0'), 16), parseInt(r.replace(/\?/g, 'f'), 16)];
    const [a, b] = r.split('-');
    return [parseInt(a, 16), parseInt(b ?? a, 16)];
  });
}

/** The fonts a face of the given style falls back through, in order. */
export function fallbackChain(bold: boolean, italic: boolean): FontSource[] {
  const mono = monoSources()[(bold ? 1 : 0) + (italic ? 2 : 0)];
  return [mono, ...fallbackSources('@fontsource/noto-emoji', 'tde'), ...fallbackSources('@fontsource/noto-sans-sc', 'tds')];
}

const inRange = (s: FontSource, cp: number) => s.ranges.some(([a, b]) => cp >= a && cp <= b);

/** Joiners and selectors shape with their neighbours but need no glyph of their own. */
const isFormat = (cp: number) => cp === 0x200d || cp === 0x200c || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef);

async function maps(s: FontSource, cp: number): Promise<boolean> {
  return inRange(s, cp) && (await load(s)).info.has(cp);
}

/**
 * The characters each font must carry: every cluster goes whole to the first
 * font that maps all of its code points; a cluster no font maps whole is split
 * code point by code point. Code points no pinned font has are left out (the
 * viewer draws them as it can).
 */
export async function assignGlyphs(clusters: Iterable<{ text: string; bold: boolean; italic: boolean }>): Promise<Map<FontSource, Set<string>>> {
  const out = new Map<FontSource, Set<string>>();
  const seen = new Set<string>();
  const add = (s: FontSource, chars: string) => {
    let set = out.get(s);
    if (!set) out.set(s, (set = new Set()));
    for (const ch of chars) set.add(ch);
  };
  for (const { text, bold, italic } of clusters) {
    const key = `${bold ? 1 : 0}${italic ? 1 : 0}${text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const chain = fallbackChain(bold, italic);
    const cps = [...text].map((c) => c.codePointAt(0)!);
    const needed = cps.filter((cp) => !isFormat(cp));
    let whole: FontSource | undefined;
    for (const s of chain) {
      if (needed.length === 0) break;
      let all = true;
      for (const cp of needed) if (!(await maps(s, cp))) all = false;
      if (all) {
        whole = s;
        break;
      }
    }
    if (whole) {
      add(whole, text);
      continue;
    }
    for (const cp of needed) {
      for (const s of chain) {
        if (await maps(s, cp)) {
          add(s, String.fromCodePoint(cp));
          break;
        }
      }
    }
  }
  return out;
}

/** The mono face's vertical metrics in pixels at a font size (for the baseline). */
export async function monoMetrics(fontSize: number): Promise<{ ascent: number; descent: number }> {
  const { info } = await load(monoSources()[0]);
  return { ascent: (info.ascender / info.unitsPerEm) * fontSize, descent: (-info.descender / info.unitsPerEm) * fontSize };
}

type SubsetFont = (font: Buffer, text: string, options: { targetFormat: 'woff2'; noHinting?: boolean }) => Promise<Buffer>;
const subsetFontPackage = optionalPackage<SubsetFont>('subset-font');

/** A font subset to the characters given, as WOFF2 bytes. */
export async function subsetFont(source: FontSource, chars: Iterable<string>): Promise<Buffer> {
  const { bytes } = await load(source);
  const subset = subsetFontPackage();
  return subset(bytes, [...chars].join(''), { targetFormat: 'woff2', noHinting: true });
}
