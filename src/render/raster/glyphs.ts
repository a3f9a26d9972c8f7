import { canvasModule } from './canvas.js';
import { covers } from './sfnt.js';
import { faceForAll, monoFace, type Face } from './fonts.js';
import { geometricMask, type Strokes } from './geometric.js';
import type { CellMetrics, Mask } from './types.js';

export type { CellMetrics, Mask } from './types.js';

/**
 * Glyph coverage masks, rasterised once per (grapheme, bold, italic, width)
 * and kept: the cell grid is then painted by blending these masks in the
 * cell's colours (compose.ts), with no further call into Skia.
 */
/**
 * The cell box the browser renderer (xterm.js's DOM renderer) lays out for
 * the same font: the advance floored, the line box (ascender + descender)
 * rounded up, the glyphs centred in it on the font's own baseline.
 */
export function cellMetrics(fontSize: number, lineHeight: number): CellMetrics {
  const facts = monoFace(false, false).facts;
  const scale = fontSize / facts.unitsPerEm;
  const ctx = scratch(8, 8);
  ctx.font = `${fontSize}px "${monoFace(false, false).alias}"`;
  const advance = ctx.measureText('W').width;
  const content = (facts.ascender - facts.descender) * scale;
  const charHeight = Math.ceil(content);
  const height = Math.max(1, Math.floor(charHeight * lineHeight));
  const baseline = (height - content) / 2 + facts.ascender * scale;
  const underlineThickness = Math.max(1, Math.round(facts.underlineThickness * scale));
  const strikeThickness = Math.max(1, Math.round(facts.strikeoutSize * scale));
  return {
    fontSize,
    width: Math.max(1, Math.floor(advance)),
    height,
    baseline,
    underlineY: Math.min(height - underlineThickness, Math.round(baseline - facts.underlinePosition * scale)),
    underlineThickness,
    strikeY: Math.round(baseline - facts.strikeoutPosition * scale - strikeThickness / 2),
    strikeThickness,
  };
}

const MAX_CACHED = 8192;

export class GlyphCache {
  /** One map per (width, bold, italic): the text alone is the key, no string is built per cell. */
  private readonly masks: Array<Map<string, Mask | null>> = Array.from({ length: 8 }, () => new Map());
  private size = 0;

  constructor(private readonly metrics: CellMetrics) {}

  /** The mask of a cell's text, or null when it draws nothing. */
  get(text: string, bold: boolean, italic: boolean, cells: number): Mask | null {
    const map = this.masks[(cells === 2 ? 4 : 0) | (bold ? 2 : 0) | (italic ? 1 : 0)];
    let mask = map.get(text);
    if (mask === undefined) {
      if (++this.size > MAX_CACHED) {
        for (const m of this.masks) m.clear();
        this.size = 1;
      }
      mask = this.rasterise(text, bold, italic, cells);
      map.set(text, mask);
    }
    return mask;
  }

  /** Whether one pinned font has every visible code point of the text. */
  hasWhole(text: string, bold: boolean, italic: boolean): boolean {
    const visible = [...text].map((p) => p.codePointAt(0)!).filter((cp) => !isInvisible(cp));
    const face = visible.length ? faceForAll(visible, bold, italic) : null;
    return face !== null && visible.every((cp) => covers(face.facts.ranges, cp));
  }

  private readonly strokeSets: Array<Strokes | undefined> = [];

  /** The cross-sections of the font's ─ ━ ═ and │ ┃ ║ (bold: of the bold face). */
  private strokes(bold: boolean): Strokes {
    const i = bold ? 1 : 0;
    if (this.strokeSets[i]) return this.strokeSets[i]!;
    const m = this.metrics;
    const face = monoFace(bold, false);
    const cut = (ch: string, across: boolean): Uint8Array => {
      const mask = draw(ch, face, m.width, m);
      const out = new Uint8Array(across ? m.height : m.width);
      if (!mask) return out;
      const cx = Math.floor(m.width / 2);
      const cy = Math.floor(m.height / 2);
      for (let k = 0; k < out.length; k++) out[k] = across ? mask.alpha[k * m.width + cx] : mask.alpha[cy * m.width + k];
      return out;
    };
    const set: Strokes = {
      across: { 1: cut('\u2500', true), 2: cut('\u2501', true), 3: cut('\u2550', true) },
      along: { 1: cut('\u2502', false), 2: cut('\u2503', false), 3: cut('\u2551', false) },
    };
    this.strokeSets[i] = set;
    return set;
  }

  private rasterise(text: string, bold: boolean, italic: boolean, cells: number): Mask | null {
    const m = this.metrics;
    const width = m.width * cells;
    const points = [...text];
    const first = points[0]?.codePointAt(0) ?? 0x20;
    if (points.length === 1) {
      const geometric = geometricMask(first, width, m.height, bold, () => this.strokes(bold));
      if (geometric !== undefined) return geometric;
    }
    const visible = points.filter((p) => !isInvisible(p.codePointAt(0)!)).map((p) => p.codePointAt(0)!);
    if (visible.length === 0) return null;
    const face = faceForAll(visible, bold, italic);
    if (!face) return notdefMask(m.width, width, m.height);
    // Only what the chosen font has is drawn: a character it lacks would send Skia to a fallback font.
    const drawn = visible.filter((cp) => covers(face.facts.ranges, cp)).map((cp) => String.fromCodePoint(cp)).join('');
    return draw(drawn, face, width, m);
  }
}

/** Controls, spaces and unassigned-looking code points draw nothing. */
function isInvisible(cp: number): boolean {
  return cp <= 0x20 || (cp >= 0x7f && cp <= 0xa0) || cp === 0x200b || (cp >= 0xd800 && cp <= 0xdfff) || cp === 0x2028 || cp === 0x2029;
}


type Canvas = import('@napi-rs/canvas').Canvas;
let canvas: Canvas | undefined;

function scratch(width: number, height: number) {
  if (!canvas || canvas.width < width || canvas.height < height) {
    canvas = canvasModule().createCanvas(Math.max(width, canvas?.width ?? 0), Math.max(height, canvas?.height ?? 0)) as Canvas;
  }
  return canvas.getContext('2d');
}

function draw(text: string, face: Face, width: number, m: CellMetrics): Mask | null {
  if (!text) return null;
  const ctx = scratch(width, m.height);
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = '#000000';
  ctx.fillRect(0, 0, width, m.height);
  ctx.fillStyle = '#ffffff';
  ctx.font = `${m.fontSize}px "${face.alias}"`;
  ctx.textBaseline = 'alphabetic';
  ctx.textAlign = 'left';
  if (face.synthItalic) ctx.setTransform(1, 0, -0.2, 1, 0.2 * m.baseline, 0);
  ctx.fillText(text, 0, m.baseline);
  const rgba = ctx.getImageData(0, 0, width, m.height).data;
  const alpha = new Uint8Array(width * m.height);
  let ink = false;
  for (let i = 0; i < alpha.length; i++) {
    const a = rgba[i * 4];
    alpha[i] = a;
    if (a) ink = true;
  }
  return ink ? { width, height: m.height, alpha } : null;
}

/** A hollow box one cell wide, as a font draws a character it lacks (none of the pinned fonts has it). */
function notdefMask(cellWidth: number, width: number, height: number): Mask {
  const alpha = new Uint8Array(width * height);
  const x0 = 1;
  const x1 = Math.max(x0 + 2, cellWidth - 2);
  const y0 = Math.round(height * 0.2);
  const y1 = Math.round(height * 0.8);
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      if (y === y0 || y === y1 || x === x0 || x === x1) alpha[y * width + x] = 255;
    }
  }
  return { width, height, alpha };
}
