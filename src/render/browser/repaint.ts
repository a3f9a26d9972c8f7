import type { CellColor, ScreenSnapshot, SnapshotCell } from '../../session/screen/screen.js';
import type { ScreenMask } from '../golden-text.js';

/**
 * Turns a screen (the headless xterm's cell grid) into the escape sequences
 * that paint exactly that grid on a fresh terminal of the same size.
 *
 * Why a repaint rather than replaying the program's bytes: the result depends
 * only on what is on the screen, so identical screens give identical input to
 * the page (and byte-identical PNGs) however the program got there; its size
 * is bounded by rows x cols instead of growing with the session; and live
 * terminals and points in a cast take the same path. What the cell grid does
 * not hold is not painted: hyperlinks.
 */
export type CursorMode = 'auto' | 'show' | 'hide';

export interface RepaintOptions {
  /** auto follows the program (DECTCEM); show/hide force it. */
  cursor?: CursorMode;
  /** Volatile regions: painted as blank cells of MASK_RGB (regexes match each line's text). */
  mask?: readonly ScreenMask[];
}

/** Playwright's mask colour: unmistakable in a diff. */
export const MASK_RGB = '#ff00ff';

export interface Repaint {
  data: string;
  cursorVisible: boolean;
  /** The non-ASCII characters on screen: the page loads the fallback fonts that cover them. */
  extraChars: string;
}

export function repaint(snap: ScreenSnapshot, options: RepaintOptions = {}): Repaint {
  if (!snap.cells) throw new Error('repaint: the snapshot needs cells (snapshot({ includeCells: true }))');
  const masked = maskedCells(snap.cells, options.mask ?? []);
  // Autowrap off: a full last column never wraps or scrolls the page's terminal.
  let out = '\x1b[?7l\x1b[0m\x1b[H\x1b[2J';
  const extra = new Set<string>();
  for (let r = 0; r < snap.rows; r++) {
    out += `\x1b[${r + 1};1H`;
    let current = '0';
    for (let c = 0; c < snap.cols; c++) {
      const cell = snap.cells[r]?.[c];
      if (!cell || cell.width === 0) continue;
      const sgr = masked[r]?.[c] ? `0;48;2;${rgbParts(MASK_RGB)}` : sgrOf(cell);
      if (sgr !== current) {
        out += `\x1b[${sgr}m`;
        current = sgr;
      }
      const ch = masked[r]?.[c] ? ' '.repeat(cell.width) : clipCell(cell.char) || ' ';
      for (const g of ch) if (g.charCodeAt(0) > 0x7e) extra.add(g);
      out += ch;
    }
    out += '\x1b[0m';
  }
  const cursorVisible = options.cursor === 'show' ? true : options.cursor === 'hide' ? false : snap.cursor.visible;
  out += `\x1b[${snap.cursor.row + 1};${snap.cursor.col + 1}H\x1b[?25${cursorVisible ? 'h' : 'l'}`;
  // The shape (DECSCUSR, steady): the page's terminal draws it as the program asked.
  out += `\x1b[${snap.cursorStyle === 'bar' ? 6 : snap.cursorStyle === 'underline' ? 4 : 2} q`;
  return { data: out, cursorVisible, extraChars: [...extra].sort().join('') };
}

function sgrOf(cell: SnapshotCell): string {
  const parts = ['0'];
  if (cell.bold) parts.push('1');
  if (cell.dim) parts.push('2');
  if (cell.italic) parts.push('3');
  if (cell.underline) parts.push(cell.underlineStyle ? `4:${UNDERLINE_SGR[cell.underlineStyle]}` : '4');
  if (cell.blink) parts.push('5');
  if (cell.inverse) parts.push('7');
  if (cell.invisible) parts.push('8');
  if (cell.strikethrough) parts.push('9');
  if (cell.overline) parts.push('53');
  const fg = colourSgr(cell.fg, 30, 90, 38);
  const bg = colourSgr(cell.bg, 40, 100, 48);
  if (fg) parts.push(fg);
  if (bg) parts.push(bg);
  const ul = cell.underline && cell.underlineColor ? colourSgr(cell.underlineColor, 58, 58, 58, true) : null;
  if (ul) parts.push(ul);
  return parts.join(';');
}

const UNDERLINE_SGR = { double: 2, curly: 3, dotted: 4, dashed: 5 } as const;

function colourSgr(colour: CellColor, base: number, brightBase: number, extended: number, extendedOnly = false): string | null {
  if (colour.kind === 'palette' && colour.index !== undefined) {
    const i = colour.index;
    if (extendedOnly) return `${extended};5;${i}`;
    if (i < 8) return String(base + i);
    if (i < 16) return String(brightBase + i - 8);
    return `${extended};5;${i}`;
  }
  if (colour.kind === 'rgb' && colour.rgb) return `${extended};2;${rgbParts(colour.rgb)}`;
  return null;
}

function rgbParts(hex: string): string {
  const n = parseInt(hex.slice(1), 16);
  return `${(n >> 16) & 0xff};${(n >> 8) & 0xff};${n & 0xff}`;
}

const NO_MASK: boolean[][] = Object.freeze([]) as unknown as boolean[][];

/** Which cells a mask covers: rectangles directly, regexes through each row's text. */
export function maskedCells(cells: SnapshotCell[][], masks: readonly ScreenMask[]): boolean[][] {
  if (masks.length === 0) return NO_MASK; // read as masked[r]?.[c]: nothing is
  const hit = cells.map((row) => row.map(() => false));
  for (const mask of masks) {
    if (mask instanceof RegExp) {
      cells.forEach((row, r) => maskRegex(row, mask, hit[r]));
      continue;
    }
    for (let r = mask.row; r < Math.min(cells.length, mask.row + (mask.height ?? 1)); r++) {
      for (let c = Math.max(0, mask.col); c < Math.min(cells[r].length, mask.col + mask.width); c++) hit[r][c] = true;
    }
  }
  // A wide character is masked whole or not at all.
  for (let r = 0; r < cells.length; r++) {
    for (let c = 1; c < cells[r].length; c++) {
      if (cells[r][c].width === 0 && hit[r][c]) hit[r][c - 1] = true;
    }
  }
  return hit;
}

function maskRegex(row: SnapshotCell[], pattern: RegExp, hit: boolean[]): void {
  let text = '';
  const cellAt: number[] = []; // UTF-16 index -> cell column
  row.forEach((cell, c) => {
    if (cell.width === 0) return;
    const ch = cell.char || ' ';
    for (let i = 0; i < ch.length; i++) cellAt.push(c);
    text += ch;
  });
  const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  for (const m of text.matchAll(global)) {
    if (m[0] === '') continue;
    const start = cellAt[m.index ?? 0];
    const endCell = cellAt[(m.index ?? 0) + m[0].length - 1];
    const last = endCell + (row[endCell]?.width === 2 ? 1 : 0);
    for (let c = start; c <= last; c++) hit[c] = true;
  }
}

/**
 * A cell holds one character and its combining marks; past a few marks nothing
 * more is visible, and megabytes of them in one cell brought Chromium down.
 */
const MAX_CELL_CHARS = 32;
function clipCell(text: string): string {
  if (text.length <= MAX_CELL_CHARS) return text;
  const cut = [...text.slice(0, MAX_CELL_CHARS)];
  return cut.slice(0, -1).join(''); // the last code point may be half a surrogate pair
}
