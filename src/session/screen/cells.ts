import type { IBufferCell, IBufferLine } from '@xterm/headless';
import { resolveColor, type CellColor } from './colors.js';

export interface SnapshotCell {
  /** The character(s) drawn in the cell; "" for the right half of a wide character. */
  char: string;
  /** 1 normal, 2 wide, 0 the right half of a wide character. */
  width: number;
  fg: CellColor;
  bg: CellColor;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  blink: boolean;
  inverse: boolean;
  invisible: boolean;
  strikethrough: boolean;
  overline: boolean;
  /** The underline's style when it is not a single line (SGR 4:2–4:5, 21); absent otherwise. */
  underlineStyle?: 'double' | 'curly' | 'dotted' | 'dashed';
  /** The underline's own colour (SGR 58); absent when it is the text's. */
  underlineColor?: CellColor;
}

/**
 * Snapshot cells, shared. A screen repeats a few hundred (character, style)
 * pairs over thousands of cells, and a screenshot loop takes a snapshot per
 * frame: describing every cell afresh allocated about 150 bytes a cell (a
 * 120x40 snapshot 0.7 MB), and V8 answered 1,000 such snapshots by growing its
 * young generation from 8 to 32 MB, most of peak RSS growth in a screenshot
 * loop. So a cell is described once per (content, fg, bg) word triple of
 * xterm's buffer and the same frozen object is handed out again, in this
 * snapshot and the next (cells are read-only; a frozen one says so if written).
 * Cells with extended attributes (underline style or colour) or combined
 * characters are rare and described each time. The table is bounded.
 */
const MAX_SHARED = 8192;
let shared = new Map<number, Map<number, Map<number, SnapshotCell>>>();
let sharedCount = 0;

interface RawCell {
  content?: number;
  fg?: number;
  bg?: number;
  extended?: { _ext?: number };
}

const HAS_EXTENDED = 0x10000000;
const IS_COMBINED = 0x200000;

let rowScratch: SnapshotCell[] = [];

/**
 * One row of cells, `cols` long (blank cells where the line is missing). A row
 * equal to `previous` (the same row of this screen's last snapshot) is that
 * array again: most rows of consecutive snapshots are unchanged, and a GIF or
 * screenshot loop then allocates nothing for them (rows are frozen, like cells).
 */
export function rowCells(line: IBufferLine | undefined, cols: number, scratch: IBufferCell, previous?: readonly SnapshotCell[]): SnapshotCell[] {
  if (rowScratch.length < cols) rowScratch = new Array(cols);
  const row = rowScratch;
  let same = previous !== undefined && previous.length === cols;
  for (let x = 0; x < cols; x++) {
    const cell = line?.getCell(x, scratch);
    const described = cell ? sharedCell(cell) : BLANK;
    row[x] = described;
    if (same && previous![x] !== described) same = false;
  }
  if (same) return previous as SnapshotCell[];
  return Object.freeze(row.slice(0, cols)) as SnapshotCell[];
}

function sharedCell(cell: IBufferCell): SnapshotCell {
  const raw = cell as unknown as RawCell;
  const { content, fg, bg } = raw;
  if (typeof content !== 'number' || typeof fg !== 'number' || typeof bg !== 'number' || bg & HAS_EXTENDED || content & IS_COMBINED) return freeze(describeCell(cell));
  let byBg = shared.get(fg);
  if (!byBg) shared.set(fg, (byBg = new Map()));
  let byContent = byBg.get(bg);
  if (!byContent) byBg.set(bg, (byContent = new Map()));
  let described = byContent.get(content);
  if (!described) {
    if (sharedCount >= MAX_SHARED) {
      shared = new Map();
      sharedCount = 0;
      return sharedCell(cell);
    }
    described = freeze(describeCell(cell));
    byContent.set(content, described);
    sharedCount++;
  }
  return described;
}

function colorKind(isDefault: boolean, isPalette: boolean): 'default' | 'palette' | 'rgb' {
  return isDefault ? 'default' : isPalette ? 'palette' : 'rgb';
}

function describeCell(cell: IBufferCell): SnapshotCell {
  const described: SnapshotCell = {
    char: cell.getChars(),
    width: cell.getWidth(),
    fg: sharedColor(colorKind(cell.isFgDefault(), cell.isFgPalette()), cell.getFgColor()),
    bg: sharedColor(colorKind(cell.isBgDefault(), cell.isBgPalette()), cell.getBgColor()),
    bold: cell.isBold() !== 0,
    dim: cell.isDim() !== 0,
    italic: cell.isItalic() !== 0,
    underline: cell.isUnderline() !== 0,
    blink: cell.isBlink() !== 0,
    inverse: cell.isInverse() !== 0,
    invisible: cell.isInvisible() !== 0,
    strikethrough: cell.isStrikethrough() !== 0,
    overline: cell.isOverline() !== 0,
  };
  if (described.underline) underlineExtras(cell, described);
  return described;
}

/**
 * Underline style and colour are not in xterm.js's public cell API: they are
 * in the cell's extended attributes (bits 26-28 the style, 0-25 the colour and
 * its mode), valid when the background word's HAS_EXTENDED bit is set.
 */
function underlineExtras(cell: IBufferCell, out: SnapshotCell): void {
  const raw = cell as unknown as RawCell;
  if (typeof raw.bg !== 'number' || !(raw.bg & HAS_EXTENDED) || typeof raw.extended?._ext !== 'number') return;
  const ext = raw.extended._ext;
  const style = (ext >>> 26) & 7;
  const styles = [undefined, undefined, 'double', 'curly', 'dotted', 'dashed'] as const;
  if (styles[style]) out.underlineStyle = styles[style];
  const mode = ext & 0x3000000;
  if (mode === 0x1000000 || mode === 0x2000000) out.underlineColor = sharedColor('palette', ext & 0xff);
  else if (mode === 0x3000000) out.underlineColor = sharedColor('rgb', ext & 0xffffff);
}

function freeze(cell: SnapshotCell): SnapshotCell {
  return Object.freeze(cell);
}

/** Colours, shared (frozen) too: the default, the 256 palette slots for good, 24-bit ones up to a bound. */
const DEFAULT_COLOR: CellColor = Object.freeze(resolveColor('default', 0));
const paletteColors: CellColor[] = [];
let rgbColors = new Map<number, CellColor>();
const MAX_RGB = 4096;

function sharedColor(kind: 'default' | 'palette' | 'rgb', value: number): CellColor {
  if (kind === 'default') return DEFAULT_COLOR;
  if (kind === 'palette') return (paletteColors[value & 0xff] ??= Object.freeze(resolveColor('palette', value & 0xff)));
  let color = rgbColors.get(value);
  if (!color) {
    if (rgbColors.size >= MAX_RGB) rgbColors = new Map();
    color = Object.freeze(resolveColor('rgb', value));
    rgbColors.set(value, color);
  }
  return color;
}

const BLANK: SnapshotCell = freeze({
  char: '', width: 1, fg: DEFAULT_COLOR, bg: DEFAULT_COLOR,
  bold: false, dim: false, italic: false, underline: false, blink: false,
  inverse: false, invisible: false, strikethrough: false, overline: false,
});
