import { inflateSync } from 'node:zlib';

/**
 * The few tables of a font file the raster renderer reads itself: the
 * character map (which code points a font really has, so a missing one is
 * never left to a fallback font of the machine), the vertical metrics and the
 * underline and strike-out positions. Reads TrueType/OpenType and WOFF 1.0
 * (tables deflated one by one); the pinned packages ship those.
 */
export interface FontFacts {
  unitsPerEm: number;
  ascender: number;
  descender: number;
  underlinePosition: number;
  underlineThickness: number;
  strikeoutPosition: number;
  strikeoutSize: number;
  /** Sorted, non-overlapping [first, last] code point ranges with a glyph. */
  ranges: Uint32Array;
}

type Tables = Map<string, Buffer>;

export function readFontFacts(file: Buffer): FontFacts {
  const tables = file.toString('latin1', 0, 4) === 'wOFF' ? woffTables(file) : sfntTables(file);
  const head = need(tables, 'head');
  const hhea = need(tables, 'hhea');
  const post = tables.get('post');
  const os2 = tables.get('OS/2');
  const unitsPerEm = head.readUInt16BE(18);
  return {
    unitsPerEm,
    ascender: hhea.readInt16BE(4),
    descender: hhea.readInt16BE(6),
    underlinePosition: post ? post.readInt16BE(8) : -Math.round(unitsPerEm / 10),
    underlineThickness: post ? post.readInt16BE(10) : Math.round(unitsPerEm / 20),
    strikeoutPosition: os2 && os2.length >= 30 ? os2.readInt16BE(28) : Math.round(unitsPerEm / 4),
    strikeoutSize: os2 && os2.length >= 28 ? os2.readInt16BE(26) : Math.round(unitsPerEm / 20),
    ranges: cmapRanges(need(tables, 'cmap')),
  };
}

/** Whether a code point is in the sorted ranges. */
export function covers(ranges: Uint32Array, cp: number): boolean {
  let lo = 0;
  let hi = ranges.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < ranges[mid * 2]) hi = mid - 1;
    else if (cp > ranges[mid * 2 + 1]) lo = mid + 1;
    else return true;
  }
  return false;
}

function need(tables: Tables, tag: string): Buffer {
  const t = tables.get(tag);
  if (!t) throw new Error(`font has no ${tag} table`);
  return t;
}

function sfntTables(file: Buffer): Tables {
  const count = file.readUInt16BE(4);
  const tables: Tables = new Map();
  for (let i = 0; i < count; i++) {
    const at = 12 + i * 16;
    const tag = file.toString('latin1', at, at + 4);
    const offset = file.readUInt32BE(at + 8);
    const length = file.readUInt32BE(at + 12);
    tables.set(tag, file.subarray(offset, offset + length));
  }
  return tables;
}

function woffTables(file: Buffer): Tables {
  const count = file.readUInt16BE(12);
  const tables: Tables = new Map();
  for (let i = 0; i < count; i++) {
    const at = 44 + i * 20;
    const tag = file.toString('latin1', at, at + 4);
    const offset = file.readUInt32BE(at + 4);
    const compLength = file.readUInt32BE(at + 8);
    const origLength = file.readUInt32BE(at + 12);
    const raw = file.subarray(offset, offset + compLength);
    tables.set(tag, compLength < origLength ? inflateSync(raw) : raw);
  }
  return tables;
}

/** Code point ranges of the best Unicode subtable (format 12 if present, else 4). */
function cmapRanges(cmap: Buffer): Uint32Array {
  const count = cmap.readUInt16BE(2);
  let best: { format: number; offset: number } | null = null;
  for (let i = 0; i < count; i++) {
    const platform = cmap.readUInt16BE(4 + i * 8);
    const encoding = cmap.readUInt16BE(6 + i * 8);
    const offset = cmap.readUInt32BE(8 + i * 8);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode) continue;
    const format = cmap.readUInt16BE(offset);
    if (format === 12 && best?.format !== 12) best = { format, offset };
    else if (format === 4 && !best) best = { format, offset };
  }
  if (!best) return new Uint32Array(0);
  const pairs: number[] = [];
  const add = (a: number, b: number) => {
    const n = pairs.length;
    if (n && pairs[n - 1] + 1 >= a) pairs[n - 1] = Math.max(pairs[n - 1], b);
    else pairs.push(a, b);
  };
  const o = best.offset;
  if (best.format === 12) {
    const groups = cmap.readUInt32BE(o + 12);
    const list: Array<[number, number]> = [];
    for (let g = 0; g < groups; g++) list.push([cmap.readUInt32BE(o + 16 + g * 12), cmap.readUInt32BE(o + 20 + g * 12)]);
    list.sort((a, b) => a[0] - b[0]).forEach(([a, b]) => add(a, b));
  } else {
    format4(cmap, o, add);
  }
  return Uint32Array.from(pairs);
}

/** Format 4 segments; a code point counts only when it maps to a glyph other than .notdef. */
function format4(cmap: Buffer, o: number, add: (a: number, b: number) => void): void {
  const segX2 = cmap.readUInt16BE(o + 6);
  const ends = o + 14;
  const starts = ends + segX2 + 2;
  const deltas = starts + segX2;
  const rangeOffsets = deltas + segX2;
  for (let s = 0; s < segX2 / 2; s++) {
    const end = cmap.readUInt16BE(ends + s * 2);
    const start = cmap.readUInt16BE(starts + s * 2);
    const delta = cmap.readInt16BE(deltas + s * 2);
    const ro = cmap.readUInt16BE(rangeOffsets + s * 2);
    if (start === 0xffff) continue;
    let runStart = -1;
    for (let c = start; c <= end; c++) {
      let glyph: number;
      if (ro === 0) glyph = (c + delta) & 0xffff;
      else {
        const at = rangeOffsets + s * 2 + ro + (c - start) * 2;
        const g = at + 2 <= cmap.length ? cmap.readUInt16BE(at) : 0;
        glyph = g === 0 ? 0 : (g + delta) & 0xffff;
      }
      if (glyph !== 0 && runStart < 0) runStart = c;
      if (glyph === 0 && runStart >= 0) {
        add(runStart, c - 1);
        runStart = -1;
      }
    }
    if (runStart >= 0) add(runStart, end);
  }
}
