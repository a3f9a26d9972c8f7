/**
 * The little of a TrueType/OpenType file the SVG writer reads itself: which
 * code points a font maps (cmap formats 4 and 12) and its vertical metrics
 * (head, hhea). Subsetting is harfbuzz's (subset-font); this only decides
 * which font of the fallback list gets which character.
 */
export interface SfntInfo {
  unitsPerEm: number;
  ascender: number;
  descender: number;
  /** True when the font maps the code point to a glyph other than .notdef. */
  has(codePoint: number): boolean;
}

export function readSfnt(font: Uint8Array): SfntInfo {
  const view = new DataView(font.buffer, font.byteOffset, font.byteLength);
  const tables = new Map<string, number>();
  const count = view.getUint16(4);
  for (let i = 0; i < count; i++) {
    const at = 12 + i * 16;
    const tag = String.fromCharCode(font[at], font[at + 1], font[at + 2], font[at + 3]);
    tables.set(tag, view.getUint32(at + 8));
  }
  const head = tables.get('head');
  const hhea = tables.get('hhea');
  const cmap = tables.get('cmap');
  if (head === undefined || hhea === undefined || cmap === undefined) throw new Error('not a TrueType/OpenType font (head, hhea or cmap missing)');
  return {
    unitsPerEm: view.getUint16(head + 18),
    ascender: view.getInt16(hhea + 4),
    descender: view.getInt16(hhea + 6),
    has: cmapLookup(view, cmap),
  };
}

function cmapLookup(view: DataView, cmap: number): (cp: number) => boolean {
  const n = view.getUint16(cmap + 2);
  let best: { format: number; offset: number } | undefined;
  for (let i = 0; i < n; i++) {
    const platform = view.getUint16(cmap + 4 + i * 8);
    const encoding = view.getUint16(cmap + 6 + i * 8);
    const offset = cmap + view.getUint32(cmap + 8 + i * 8);
    const format = view.getUint16(offset);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode || (format !== 4 && format !== 12)) continue;
    if (!best || (format === 12 && best.format === 4)) best = { format, offset };
  }
  if (!best) return () => false;
  return best.format === 12 ? format12(view, best.offset) : format4(view, best.offset);
}

function format12(view: DataView, at: number): (cp: number) => boolean {
  const groups = view.getUint32(at + 12);
  return (cp) => {
    let lo = 0;
    let hi = groups - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const g = at + 16 + mid * 12;
      const start = view.getUint32(g);
      const end = view.getUint32(g + 4);
      if (cp < start) hi = mid - 1;
      else if (cp > end) lo = mid + 1;
      else return view.getUint32(g + 8) + (cp - start) !== 0;
    }
    return false;
  };
}

function format4(view: DataView, at: number): (cp: number) => boolean {
  const segX2 = view.getUint16(at + 6);
  const ends = at + 14;
  const starts = ends + segX2 + 2;
  const deltas = starts + segX2;
  const rangeOffsets = deltas + segX2;
  return (cp) => {
    if (cp > 0xffff) return false;
    for (let s = 0; s < segX2; s += 2) {
      if (cp > view.getUint16(ends + s)) continue;
      const start = view.getUint16(starts + s);
      if (cp < start) return false;
      const delta = view.getUint16(deltas + s);
      const ro = view.getUint16(rangeOffsets + s);
      if (ro === 0) return ((cp + delta) & 0xffff) !== 0;
      const glyph = view.getUint16(rangeOffsets + s + ro + (cp - start) * 2);
      return glyph !== 0 && ((glyph + delta) & 0xffff) !== 0;
    }
    return false;
  };
}
