import type { ScreenSnapshot, SnapshotCell } from '../session/screen/screen.js';
import { codepointWidth, stringWidth } from '../session/screen/unicode-widths.js';

/**
 * The screen golden: a text format designed for code review.
 *
 *   tapedeck-screen v1 cols=80 rows=24 cursor=3,10 cursor-visible=yes alt-screen=no
 *   $ echo hi                                                                       │
 *   hi                                                                              │
 *   ...
 *
 * One header line with size and cursor (0-based row,col), then every screen
 * line verbatim, padded to the full width in cells and closed with "│", so
 * trailing spaces are visible and a changed width shows. A wide character is
 * written once and its right half adds nothing (it takes two columns in any
 * editor that measures like the terminal), so "│" sits in the same column on
 * every line; combining marks stay on their cell. The text is the same
 * whether or not the snapshot has cells (the style layer). With styles, a style layer
 * follows: runs of cells that share a non-default style, keyed by palette slot
 * ("red", "brightBlue", "palette:236") rather than RGB, so a theme change does
 * not churn goldens:
 *
 *   --- styles
 *   0:0-4 fg=green bold
 *   5:10-79 bg=palette:236 inverse
 */
export const GOLDEN_HEADER = 'tapedeck-screen v1';
export const LINE_END = '│';
export const MASK_CHAR = '░';

export type ScreenMask = RegExp | { row: number; col: number; width: number; height?: number };

export interface ScreenGoldenOptions {
  styles?: boolean;
  /** Volatile regions: regexes over each line's text, or rectangles of cells; both become ░. */
  mask?: readonly ScreenMask[];
}

export function formatScreenGolden(snap: ScreenSnapshot, options: ScreenGoldenOptions = {}): string {
  const lines = maskedLines(snap, options.mask ?? []);
  const header = `${GOLDEN_HEADER} cols=${snap.cols} rows=${snap.rows} cursor=${snap.cursor.row},${snap.cursor.col} cursor-visible=${snap.cursor.visible ? 'yes' : 'no'} alt-screen=${snap.isAltScreen ? 'yes' : 'no'}`;
  const out = [header, ...lines.map((l) => `${l}${LINE_END}`)];
  if (options.styles) {
    if (!snap.cells) throw new Error('formatScreenGolden: styles need a snapshot taken with includeCells');
    out.push('--- styles', ...styleRuns(snap.cells));
  }
  return `${out.join('\n')}\n`;
}

/** The visible lines, each exactly `cols` cells wide (wide characters count twice), with masks applied. */
function maskedLines(snap: ScreenSnapshot, masks: readonly ScreenMask[]): string[] {
  // Without rectangles the lines need no grid: each is padded to the width (a 1000x1000 screen is a
  // million cells, and a string per cell made each read of it cost a second of garbage collection).
  if (masks.some((m) => !(m instanceof RegExp))) return gridLines(snap, masks);
  const lines = snap.cells ? snap.cells.map(cellsLine) : snap.visibleLines.map((line) => paddedLine(line, snap.cols));
  return regexMasked(lines, masks);
}

function cellsLine(row: SnapshotCell[]): string {
  let line = '';
  for (const c of row) if (c.width !== 0) line += c.char || ' ';
  return line;
}

function gridLines(snap: ScreenSnapshot, masks: readonly ScreenMask[]): string[] {
  const grid: string[][] = snap.cells
    ? snap.cells.map((row) => row.map((c) => (c.width === 0 ? '' : c.char || ' ')))
    : snap.visibleLines.map((line) => textCells(line, snap.cols));
  for (const mask of masks) {
    if (mask instanceof RegExp) continue;
    const height = mask.height ?? 1;
    for (let r = mask.row; r < Math.min(snap.rows, mask.row + height); r++) {
      for (let c = mask.col; c < Math.min(snap.cols, mask.col + mask.width); c++) {
        if (grid[r]?.[c] !== undefined) grid[r][c] = grid[r][c] === '' ? '' : MASK_CHAR;
      }
    }
  }
  return regexMasked(grid.map((cells) => cells.join('')), masks);
}

function regexMasked(lines: string[], masks: readonly ScreenMask[]): string[] {
  for (const mask of masks) {
    if (!(mask instanceof RegExp)) continue;
    const re = new RegExp(mask.source, mask.flags.includes('g') ? mask.flags : `${mask.flags}g`);
    lines = lines.map((l) => l.replace(re, (m) => MASK_CHAR.repeat(stringWidth(m)))); // a wide character masks as two cells
  }
  return lines;
}

/** textCells(line, cols).join(''), without a string per cell: the line as laid out, padded with spaces to `cols` cells. */
function paddedLine(line: string, cols: number): string {
  let n = 0;
  for (let i = 0; i < line.length; i++) {
    const unit = line.charCodeAt(i);
    if (unit >= 0x20 && unit < 0x7f) {
      n++;
      continue;
    }
    const cp = line.codePointAt(i) ?? 0;
    if (cp > 0xffff) i++;
    const width = codepointWidth(cp);
    n += width === 0 ? (n === 0 ? 1 : 0) : width;
  }
  if (n > cols) return textCells(line, cols).join(''); // cut at the width, as the grid does
  return n === cols ? line : line + ' '.repeat(cols - n);
}

/** A line of screen text split into cells the way the screen laid it out ('' for the right half of a wide character). */
function textCells(line: string, cols: number): string[] {
  const cells: string[] = [];
  for (const ch of line) {
    const width = codepointWidth(ch.codePointAt(0) ?? 0);
    if (width === 0 && cells.length > 0) {
      // A combining mark belongs to the last character cell, not the empty right half of a wide one.
      let i = cells.length - 1;
      while (i > 0 && cells[i] === '') i--;
      cells[i] += ch;
      continue;
    }
    cells.push(ch);
    if (width === 2) cells.push('');
  }
  while (cells.length < cols) cells.push(' ');
  return cells.slice(0, cols);
}

function styleKey(c: SnapshotCell): string {
  const parts: string[] = [];
  const color = (name: string, v: SnapshotCell['fg']) => {
    if (v.kind === 'default') return;
    parts.push(`${name}=${v.kind === 'rgb' ? v.rgb : v.slot}`);
  };
  color('fg', c.fg);
  color('bg', c.bg);
  for (const attr of ['bold', 'dim', 'italic', 'underline', 'blink', 'inverse', 'invisible', 'strikethrough', 'overline'] as const) {
    if (c[attr]) parts.push(attr);
  }
  return parts.join(' ');
}

/** "row:start-end style" for each run of same-styled cells that is not plain. */
export function styleRuns(cells: SnapshotCell[][]): string[] {
  const out: string[] = [];
  cells.forEach((row, r) => {
    let start = 0;
    let key = '';
    const flush = (end: number) => {
      if (key !== '') out.push(`${r}:${start}-${end - 1} ${key}`);
    };
    row.forEach((cell, c) => {
      const k = styleKey(cell);
      if (k !== key) {
        flush(c);
        start = c;
        key = k;
      }
    });
    flush(row.length);
  });
  return out;
}

/** Parsed back for diffs and messages. */
export function parseScreenGolden(text: string): { header: string; lines: string[]; styles?: string[] } {
  const all = text.replace(/\n$/, '').split('\n');
  const header = all[0] ?? '';
  const stylesAt = all.indexOf('--- styles');
  const body = stylesAt === -1 ? all.slice(1) : all.slice(1, stylesAt);
  return {
    header,
    lines: body.map((l) => (l.endsWith(LINE_END) ? l.slice(0, -LINE_END.length) : l)),
    styles: stylesAt === -1 ? undefined : all.slice(stylesAt + 1),
  };
}
