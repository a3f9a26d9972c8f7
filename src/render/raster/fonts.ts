import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { OPTIONAL_PACKAGES, optionalPackageDir, optionalPackageMissing, type OptionalPackage } from '../../core/lazy-package.js';
import { FONT_PACKAGES, packageDir, packageVersion } from '../browser/fonts.js';
import { canvasModule } from './canvas.js';
import { covers, readFontFacts, type FontFacts } from './sfnt.js';

/**
 * The pinned fonts as the rasteriser sees them. Each file is registered with
 * Skia under a name of tapedeck's own ("tapedeck-…"), so no installed font of
 * the same family can stand in for it. The fallback order is the browser
 * renderer's (profiles.ts FONT_FAMILY): DejaVu Sans Mono, then Noto Emoji,
 * then Noto Sans SC; the Noto packages come split into slices by
 * unicode-range (their 400.css), each registered on first use.
 */
export interface Face {
  alias: string;
  facts: FontFacts;
  /** Skia draws the style by slanting (the family has no italic file). */
  synthItalic: boolean;
}

interface Slice {
  file: string;
  alias: string;
  /** Its unicode-range, sorted and merged. */
  ranges: Uint32Array;
  face?: Face | null;
}

const MONO_FILES = { regular: 'DejaVuSansMono.ttf', bold: 'DejaVuSansMono-Bold.ttf', italic: 'DejaVuSansMono-Oblique.ttf', boldItalic: 'DejaVuSansMono-BoldOblique.ttf' };
type MonoStyle = keyof typeof MONO_FILES;

let mono: Record<MonoStyle, Face> | undefined;
let slices: Slice[] | undefined;

export function monoFace(bold: boolean, italic: boolean): Face {
  mono ??= loadMono();
  return mono[bold ? (italic ? 'boldItalic' : 'bold') : italic ? 'italic' : 'regular'];
}

/** The face that draws code point cp in this style, or null when no pinned font has it. */
export function faceFor(cp: number, bold: boolean, italic: boolean): Face | null {
  const m = monoFace(bold, italic);
  if (covers(m.facts.ranges, cp)) return m;
  for (const index of slicesFor(cp)) {
    const face = sliceFace(index);
    if (face && covers(face.facts.ranges, cp)) return italic ? { ...face, synthItalic: true } : face;
  }
  return null;
}

/**
 * The face for a whole grapheme or ZWJ sequence: the base's style of DejaVu
 * when it has every code point, else the first Noto slice that has them all
 * (so its ligature is drawn, as a browser shapes the run), else the base's face.
 */
export function faceForAll(cps: number[], bold: boolean, italic: boolean): Face | null {
  const base = cps[0];
  const m = monoFace(bold, italic);
  if (cps.every((cp) => covers(m.facts.ranges, cp))) return m;
  if (!covers(m.facts.ranges, base)) {
    for (const index of slicesFor(base)) {
      const face = sliceFace(index);
      if (face && cps.every((cp) => covers(face.facts.ranges, cp))) return italic ? { ...face, synthItalic: true } : face;
    }
  }
  return faceFor(base, bold, italic);
}

/** The package versions the pixels depend on (for the PNG stamp). */
export function fontPackages(): Record<string, string | null> {
  return Object.fromEntries(FONT_PACKAGES.map((p) => [p.name, packageVersion(p.name)]));
}

function loadMono(): Record<MonoStyle, Face> {
  const dir = optionalPackageDir('dejavu-fonts-ttf');
  const out = {} as Record<MonoStyle, Face>;
  for (const [style, name] of Object.entries(MONO_FILES) as Array<[MonoStyle, string]>) {
    const alias = `tapedeck-mono-${style}`;
    out[style] = { alias, facts: register(join(dir, 'ttf', name), alias, 'dejavu-fonts-ttf'), synthItalic: false };
  }
  return out;
}

function register(file: string, alias: string, pkg: string): FontFacts {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    throw missing(pkg);
  }
  const facts = readFontFacts(bytes);
  if (!canvasModule().GlobalFonts.register(bytes, alias)) {
    throw new TapedeckError('RENDERER_UNAVAILABLE', `the rasteriser could not read the pinned font ${file}. Fix: reinstall ${pkg} (npm ci)`);
  }
  return facts;
}

function missing(pkg: string): TapedeckError {
  return pkg in OPTIONAL_PACKAGES ? optionalPackageMissing(pkg as OptionalPackage) : new TapedeckError('RENDERER_UNAVAILABLE', `the pinned font file ${pkg} could not be read. Fix: reinstall tapedeck (npm ci)`);
}

function sliceFace(index: number): Face | null {
  const slice = slices![index];
  if (slice.face === undefined) {
    try {
      slice.face = { alias: slice.alias, facts: register(slice.file, slice.alias, slice.file), synthItalic: false };
    } catch {
      slice.face = null; // a slice that cannot be read draws nothing rather than failing the screenshot
    }
  }
  return slice.face;
}

function slicesFor(cp: number): number[] {
  if (!slices) loadSlices();
  const found: number[] = [];
  slices!.forEach((slice, i) => {
    if (covers(slice.ranges, cp)) found.push(i);
  });
  return found;
}

function loadSlices(): void {
  slices = [];
  for (const pkg of ['@fontsource/noto-emoji', '@fontsource/noto-sans-sc']) {
    const dir = packageDir(pkg);
    if (!dir) continue;
    let css: string;
    try {
      css = readFileSync(join(dir, '400.css'), 'utf8');
    } catch {
      continue;
    }
    for (const rule of css.split('@font-face').slice(1)) {
      const file = /url\(\.\/(files\/[^)]+\.woff)\)/.exec(rule)?.[1];
      const range = /unicode-range:([^;]+);/.exec(rule)?.[1];
      if (!file || !range) continue;
      const ranges: Array<[number, number]> = [];
      for (const part of range.split(',')) {
        const m = /U\+([0-9a-f?]+)(?:-([0-9a-f]+))?/i.exec(part.trim());
        if (!m) continue;
        const first = parseInt(m[1].replace(/\?/g, '0'), 16);
        const last = m[2] ? parseInt(m[2], 16) : parseInt(m[1].replace(/\?/g, 'f'), 16);
        ranges.push([first, last]);
      }
      slices.push({ file: join(dir, file), alias: `tapedeck-${pkg.split('/')[1]}-${slices.length}`, ranges: mergeRanges(ranges) });
    }
  }
}

function mergeRanges(list: Array<[number, number]>): Uint32Array {
  const out: number[] = [];
  for (const [a, b] of list.sort((x, y) => x[0] - y[0])) {
    const n = out.length;
    if (n && out[n - 1] + 1 >= a) out[n - 1] = Math.max(out[n - 1], b);
    else out.push(a, b);
  }
  return Uint32Array.from(out);
}
