import type { CellColor, ScreenSnapshot, SnapshotCell } from '../../session/screen/screen.js';
import { paletteRgb } from '../../session/screen/colors.js';
import type { RenderProfile } from '../profiles.js';
import { MASK_RGB } from '../browser/repaint.js';
import { overlineMask, strikeMask, underlineMask, type UnderlineStyle } from './decorations.js';
import type { CellMetrics, GlyphCache, Mask } from './glyphs.js';

/**
 * Paints a snapshot's cell grid into an RGBA frame: each cell's background,
 * its glyph mask blended in its colour, its lines (underline in its own
 * colour, strike-through, overline) and the cursor. The colour rules are
 * xterm.js's, as the browser renderer draws them: bold makes the 8 base
 * colours bright, dim is half-way to the background, inverse swaps, invisible
 * draws the background only. A cell painted once in some colours is kept as a
 * tile and copied the next time.
 */
export interface ComposeInput {
  snap: ScreenSnapshot;
  profile: RenderProfile;
  metrics: CellMetrics;
  glyphs: GlyphCache;
  masked: boolean[][];
  cursorVisible: boolean;
  cursorStyle: 'block' | 'underline' | 'bar';
}

export interface Frame {
  width: number;
  height: number;
  data: Uint8Array;
}

const MAX_TILES = 4096;
/** Undecorated cells: per glyph mask, keyed by the two colours as one number (24 bits each). */
let plainTiles = new WeakMap<Mask, Map<number, Uint32Array>>();
/** Cells with lines (underline, strike-through, overline), keyed by a string of everything that draws. */
const decoratedTiles = new Map<string, Uint32Array>();
let tileCount = 0;

/** Into `into` when it is big enough (the PNG path reuses one buffer), else into fresh memory. */
export function compose(input: ComposeInput, into?: Uint8Array): Frame {
  const { snap, profile, metrics: m, glyphs, masked } = input;
  const pad = profile.padding;
  const width = snap.cols * m.width + 2 * pad;
  const height = snap.rows * m.height + 2 * pad;
  const data = into && into.length >= width * height * 4 ? into.subarray(0, width * height * 4) : new Uint8Array(width * height * 4);
  const d32 = new Uint32Array(data.buffer, data.byteOffset, width * height);
  const palette = paletteOf(profile);
  const defaultBg = palette.background;
  d32.fill(defaultBg);
  const cells = snap.cells ?? [];
  const cur = snap.cursor;
  for (let r = 0; r < snap.rows; r++) {
    const row = cells[r];
    if (!row) continue;
    let joinedUntil = 0; // cells drawn as part of the ZWJ sequence begun before them
    for (let c = 0; c < snap.cols; c++) {
      const cell = row[c];
      if (!cell || cell.width === 0) continue;
      const span = Math.min(cell.width, snap.cols - c) || 1;
      const x = pad + c * m.width;
      const y = pad + r * m.height;
      if (masked[r]?.[c]) {
        fillRect(d32, width, x, y, span * m.width, m.height, MASK);
        continue;
      }
      let { fg, bg } = cellColours(cell, palette);
      const blockCursor = input.cursorVisible && input.cursorStyle === 'block' && cur.row === r && cur.col === c;
      if (blockCursor) [fg, bg] = [palette.cursorAccent, palette.cursor];
      const ul: UnderlineStyle | null = cell.underline ? (cell.underlineStyle ?? 'single') : null;
      const drawsInk = !cell.invisible;
      let text = c < joinedUntil ? '' : cell.char;
      if (text.endsWith('\u200d')) {
        const [joined, until] = joinSequence(row, c + span, text);
        // Joined only when one font has the whole sequence (its ligature); else each cell draws its own, as a browser falls back per character.
        if (glyphs.hasWhole(joined, cell.bold, cell.italic)) [text, joinedUntil] = [joined, until];
      }
      const glyph = drawsInk && text !== '' && text !== ' ' ? glyphs.get(text, cell.bold, cell.italic, span) : null;
      const decorated = drawsInk && (ul !== null || cell.strikethrough || cell.overline);
      if (!glyph && !decorated) {
        if (bg !== defaultBg) fillRect(d32, width, x, y, span * m.width, m.height, bg);
        continue;
      }
      const ulColour = ul && cell.underlineColor && cell.underlineColor.kind !== 'default' && !blockCursor ? dimmed(cell, colourOf(cell.underlineColor, palette, false, 'fg'), bg) : fg;
      let tile: Uint32Array | undefined;
      if (!decorated && glyph) {
        let byColour = plainTiles.get(glyph);
        if (!byColour) plainTiles.set(glyph, (byColour = new Map()));
        const key = (fg & 0xffffff) * 0x1000000 + (bg & 0xffffff);
        tile = byColour.get(key);
        if (!tile) {
          tile = paintTile(span * m.width, m.height, fg, bg, glyph, ul, ulColour, cell, span, m);
          byColour.set(key, tile);
          countTile();
        }
      } else {
        const key = `${text}\u0000${span}${cell.bold ? 1 : 0}${cell.italic ? 1 : 0}${ul ?? '-'}${cell.strikethrough ? 1 : 0}${cell.overline ? 1 : 0}|${fg}|${bg}|${ulColour}|${m.width}x${m.height}`;
        tile = decoratedTiles.get(key);
        if (!tile) {
          tile = paintTile(span * m.width, m.height, fg, bg, glyph, ul, ulColour, cell, span, m);
          decoratedTiles.set(key, tile);
          countTile();
        }
      }
      blit(d32, width, x, y, tile, span * m.width, m.height);
    }
  }
  if (input.cursorVisible && input.cursorStyle !== 'block' && cur.row < snap.rows && cur.col < snap.cols) {
    const x = pad + cur.col * m.width;
    const y = pad + cur.row * m.height;
    if (input.cursorStyle === 'bar') fillRect(d32, width, x, y, 1, m.height, palette.cursor);
    else fillRect(d32, width, x, y + m.height - 1, m.width * Math.max(1, cells[cur.row]?.[cur.col]?.width ?? 1), 1, palette.cursor);
  }
  return { width, height, data };
}

/**
 * A cell ending in a zero-width joiner and the cells after it are one emoji
 * sequence (👨‍💻 is two cells of the grid): drawn as one text in the first
 * cell, as the browser shapes the run, the others keep their background only.
 */
function joinSequence(row: SnapshotCell[], from: number, text: string): [string, number] {
  let k = from;
  while (text.endsWith('\u200d') && k < row.length && row[k] && row[k].width > 0 && row[k].char && text.length < 64) {
    text += row[k].char;
    k += row[k].width;
  }
  return [text, k];
}

/** Past MAX_TILES every tile is dropped (a screen of a different colour per cell cannot grow memory). */
function countTile(): void {
  if (++tileCount <= MAX_TILES) return;
  dropTiles();
}

function dropTiles(): void {
  plainTiles = new WeakMap();
  decoratedTiles.clear();
  tileCount = 0;
  arenaUsed = 0;
}

/**
 * Tiles are views into one arena rather than a buffer each: a screen in new colours every frame
 * made a few dozen 600-byte buffers per screenshot, each its own allocation outside the heap,
 * freed only when V8 collected its wrapper. When the arena is full every tile is dropped (as
 * past MAX_TILES) and it is filled again; a tile is only used while its cell is drawn.
 */
const ARENA_WORDS = 1 << 19;
let arena: Uint32Array | undefined;
let arenaUsed = 0;

function tileMemory(words: number): Uint32Array {
  if (words > ARENA_WORDS / 16) return new Uint32Array(words); // a huge font's cells: not worth an arena
  arena ??= new Uint32Array(ARENA_WORDS);
  if (arenaUsed + words > ARENA_WORDS) dropTiles();
  const tile = arena.subarray(arenaUsed, arenaUsed + words);
  arenaUsed += words;
  return tile;
}

function paintTile(w: number, h: number, fg: number, bg: number, glyph: Mask | null, ul: UnderlineStyle | null, ulColour: number, cell: SnapshotCell, span: number, m: CellMetrics): Uint32Array {
  const tile = tileMemory(w * h).fill(bg);
  if (glyph) blend(tile, glyph.alpha, fg);
  if (cell.strikethrough) blend(tile, strikeMask(span, m), fg);
  if (cell.overline) blend(tile, overlineMask(span, m), fg);
  if (ul) blend(tile, underlineMask(ul, span, m), ulColour);
  return tile;
}

function blend(tile: Uint32Array, alpha: Uint8Array, colour: number): void {
  const fr = colour & 0xff;
  const fg = (colour >>> 8) & 0xff;
  const fb = (colour >>> 16) & 0xff;
  for (let i = 0; i < tile.length; i++) {
    const a = alpha[i];
    if (a === 0) continue;
    if (a === 255) {
      tile[i] = colour;
      continue;
    }
    const p = tile[i];
    const r = p & 0xff;
    const g = (p >>> 8) & 0xff;
    const b = (p >>> 16) & 0xff;
    tile[i] = (0xff000000 | ((b + (((fb - b) * a + 127) / 255) | 0) << 16) | ((g + (((fg - g) * a + 127) / 255) | 0) << 8) | (r + (((fr - r) * a + 127) / 255) | 0)) >>> 0;
  }
}

// Plain loops: a cell row is a few pixels, and subarray() views per row cost more (and feed the GC).
function blit(d32: Uint32Array, stride: number, x: number, y: number, tile: Uint32Array, w: number, h: number): void {
  let t = 0;
  for (let row = 0; row < h; row++) {
    let o = (y + row) * stride + x;
    for (let k = 0; k < w; k++) d32[o++] = tile[t++];
  }
}

function fillRect(d32: Uint32Array, stride: number, x: number, y: number, w: number, h: number, colour: number): void {
  for (let row = 0; row < h; row++) {
    let o = (y + row) * stride + x;
    for (let k = 0; k < w; k++) d32[o++] = colour;
  }
}

interface Palette {
  background: number;
  foreground: number;
  cursor: number;
  cursorAccent: number;
  ansi: number[];
}

const palettes = new WeakMap<RenderProfile, Palette>();

function paletteOf(profile: RenderProfile): Palette {
  let p = palettes.get(profile);
  if (!p) {
    const t = profile.theme;
    p = {
      background: packHex(t.background),
      foreground: packHex(t.foreground),
      cursor: packHex(t.cursor),
      cursorAccent: packHex(t.cursorAccent),
      ansi: Array.from({ length: 256 }, (_, i) => packHex(i < 16 && t.ansi[i] ? t.ansi[i] : paletteRgb(i))),
    };
    palettes.set(profile, p);
  }
  return p;
}

function cellColours(cell: SnapshotCell, palette: Palette): { fg: number; bg: number } {
  let fg = colourOf(cell.fg, palette, cell.bold, 'fg');
  let bg = colourOf(cell.bg, palette, false, 'bg');
  if (cell.inverse) [fg, bg] = [bg, fg];
  return { fg: dimmed(cell, fg, bg), bg };
}

function dimmed(cell: SnapshotCell, fg: number, bg: number): number {
  return cell.dim ? mix(fg, bg) : fg;
}

function colourOf(colour: CellColor, palette: Palette, bold: boolean, slot: 'fg' | 'bg'): number {
  if (colour.kind === 'palette' && colour.index !== undefined) {
    const i = bold && colour.index < 8 ? colour.index + 8 : colour.index;
    return palette.ansi[i & 0xff];
  }
  if (colour.kind === 'rgb' && colour.rgb) return packHex(colour.rgb);
  return slot === 'fg' ? palette.foreground : palette.background;
}

/** Half-way between two colours (xterm.js draws dim text at half opacity). */
function mix(a: number, b: number): number {
  const ch = (s: number) => (((a >>> s) & 0xff) + ((b >>> s) & 0xff) + 1) >> 1;
  return (0xff000000 | (ch(16) << 16) | (ch(8) << 8) | ch(0)) >>> 0;
}

const hexCache = new Map<string, number>();

/** "#rrggbb" as the little-endian RGBA word of an opaque pixel. */
export function packHex(hex: string): number {
  let v = hexCache.get(hex);
  if (v === undefined) {
    const n = parseInt(hex.slice(1, 7), 16) || 0;
    v = (0xff000000 | ((n & 0xff) << 16) | (n & 0xff00) | ((n >> 16) & 0xff)) >>> 0;
    if (hexCache.size > 65536) hexCache.clear();
    hexCache.set(hex, v);
  }
  return v;
}

const MASK = packHex(MASK_RGB);
