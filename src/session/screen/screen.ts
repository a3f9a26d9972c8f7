import type { Terminal as XTerm } from '@xterm/headless';
import { optionalPackage } from '../../core/lazy-package.js';
import { RepeatGuard } from './vt-guard.js';
import { rowCells, type SnapshotCell } from './cells.js';
import { lineText } from './line-text.js';
import { fastLineCopy } from './line-copy.js';
import { preloadWidths, useGlibcWidths } from './unicode-widths.js';
import { MouseEncodingTracker, trackingFromXterm, type MouseModes } from '../input/mouse.js';
import { answerQueries } from './queries.js';
import { dropUnjoinedZeroWidth } from './zero-width.js';
import { fastPrint } from './fast-print.js';
import { groundLane } from './ground-lane.js';
import { fixEraseAbove } from './erase-above.js';
import { boundCounts } from './count-bounds.js';
import { capCellClusters } from './cluster-cap.js';
import { fixAltBufferLength } from './alt-buffer-length.js';
import { resizeWhole } from './resize-repair.js';
import { codepointParser, type CodepointParser } from './codepoint-parse.js';
import { textOf } from '../../core/text/codepoints.js';

// Loaded with the first screen: importing the library for a protocol replay does not pay for xterm.
const xtermHeadless = optionalPackage<typeof import('@xterm/headless')>('@xterm/headless');

/** Loads xterm and the width tables now (a cast player does it while its reader thread starts). */
export function loadScreenPackages(): void {
  xtermHeadless();
  preloadWidths();
}

export type { CellColor } from './colors.js';

export interface ScreenOptions {
  rows?: number;
  cols?: number;
  /** Lines kept above the viewport (xterm.js default 1000). */
  scrollback?: number;
}

export interface SnapshotOptions {
  includeScrollback?: boolean;
  includeCells?: boolean;
}

export type { SnapshotCell } from './cells.js';

/** Seed 002 §14 snapshot fields. Rows and columns are 0-based. */
export interface ScreenSnapshot {
  rows: number;
  cols: number;
  cursor: { row: number; col: number; visible: boolean };
  isAltScreen: boolean;
  visibleLines: string[];
  scrollbackLines?: string[];
  /** One array per visible row, `cols` cells each. */
  cells?: SnapshotCell[][];
  /** The cursor's shape (DECSCUSR) when it is not a block; with cells only. */
  cursorStyle?: 'underline' | 'bar';
}

/** The terminal modes that change which bytes a key sends. */
export interface InputModes {
  applicationCursorKeys: boolean;
  applicationKeypad: boolean;
  bracketedPaste: boolean;
}

/**
 * A headless xterm.js screen. xterm parses asynchronously, so every write
 * returns a promise that settles once its bytes are on the screen; reads
 * (snapshot, text) see exactly the bytes written before the last settled write.
 */
export class Screen {
  readonly xterm: XTerm;
  private pending: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private readonly guard = new RepeatGuard(() => ({ rows: this.xterm.rows, cols: this.xterm.cols }));
  private readonly mouseEncoding: MouseEncodingTracker;
  /** The last snapshot's rows: an unchanged row is handed out again (see rowCells). */
  private lastRows: SnapshotCell[][] | undefined;
  /** Made on the first code-point write; null when this xterm.js lacks the internals. */
  private parseCodepoints: CodepointParser | null | undefined;

  constructor(options: ScreenOptions = {}) {
    this.xterm = new (xtermHeadless().Terminal)({
      rows: options.rows ?? 24,
      cols: options.cols ?? 80,
      scrollback: options.scrollback ?? 1000,
      allowProposedApi: true,
      logLevel: 'off', // its parse warnings would print tape bytes to the user's terminal
      windowOptions: { getWinSizeChars: true }, // CSI 18 t: the size in characters, as xterm answers
    });
    // Unicode 6 widths (xterm's default) put every emoji in one cell; programs count two.
    useGlibcWidths(this.xterm.unicode);
    dropUnjoinedZeroWidth(this.xterm);
    fastPrint(this.xterm); // in front of the zero-width rule, which it leaves to the print it wraps
    fastLineCopy(this.xterm);
    groundLane(this.xterm); // text, C0 and plain CSIs without xterm.js's state table; the rest goes to its parser
    answerQueries(this.xterm);
    fixEraseAbove(this.xterm);
    boundCounts(this.xterm);
    capCellClusters(this.xterm); // after groundLane: its wrapper around the parser must be the outer one
    fixAltBufferLength(this.xterm);
    this.mouseEncoding = new MouseEncodingTracker(this.xterm);
  }

  get rows(): number {
    return this.xterm.rows;
  }

  get cols(): number {
    return this.xterm.cols;
  }

  /** Parses bytes (UTF-8 split across writes is joined by xterm's own decoder). */
  write(raw: Uint8Array | string): Promise<void> {
    const data = this.guard.filter(raw); // bounded cost per sequence, whatever the input
    if (this.inFlight === 0) parseNextWriteNow(this.xterm);
    this.inFlight++;
    this.pending = new Promise<void>((resolve) =>
      this.xterm.write(data, () => {
        this.inFlight--;
        resolve();
      }),
    );
    return this.pending;
  }

  /**
   * Parses bytes at once, on this tick, when nothing else is queued (else as
   * write()). For playing a cast, where nothing waits on the screen meanwhile:
   * xterm's own queue slices its work by a timer (12 ms of parsing, then a
   * setTimeout, at least 1 ms in Node), which alone cost about 8% of playing a
   * large cast, plus a promise per write.
   */
  writeNow(raw: Uint8Array | string): void {
    const core = (this.xterm as unknown as { _core?: { writeSync?: (data: Uint8Array | string) => void } })._core;
    if (this.inFlight > 0 || typeof core?.writeSync !== 'function') {
      void this.write(raw);
      return;
    }
    core.writeSync(this.guard.filter(raw));
  }

  /** As writeNow, for output already decoded to code points (see codepoint-parse.ts); `repeats: false`: it holds no REP. */
  writeCodepointsNow(codepoints: Uint32Array, repeats = true): void {
    if (this.parseCodepoints === undefined) this.parseCodepoints = codepointParser(this.xterm) ?? null;
    if (this.inFlight > 0 || !this.parseCodepoints) {
      void this.write(textOf(codepoints));
      return;
    }
    this.parseCodepoints(this.guard.filterCodepoints(codepoints, repeats));
  }

  /** Settles when every write so far is parsed. */
  flush(): Promise<void> {
    return this.pending;
  }

  resize(rows: number, cols: number): void {
    resizeWhole(this.xterm, rows, cols);
  }

  get modes(): InputModes {
    const m = this.xterm.modes;
    return {
      applicationCursorKeys: m.applicationCursorKeysMode,
      applicationKeypad: m.applicationKeypadMode,
      bracketedPaste: m.bracketedPasteMode,
    };
  }

  /** The mouse reporting the program enabled (DECSET 9/1000/1002/1003) and how positions are encoded (1005/1006/1015). */
  get mouseModes(): MouseModes {
    return { tracking: trackingFromXterm(this.xterm.modes.mouseTrackingMode), encoding: this.mouseEncoding.encoding };
  }

  get cursor(): { row: number; col: number; visible: boolean } {
    const b = this.xterm.buffer.active;
    return { row: b.cursorY, col: b.cursorX, visible: !isCursorHidden(this.xterm) };
  }

  get isAltScreen(): boolean {
    return this.xterm.buffer.active.type === 'alternate';
  }

  // Lines are read up to the right edge only: after a width shrink xterm keeps each line's old cells
  // past it (the alternate screen does not reflow), which no terminal shows (tmux cuts the line).
  visibleLines(): string[] {
    const b = this.xterm.buffer.active;
    const cols = this.xterm.cols;
    const lines: string[] = [];
    for (let y = 0; y < this.xterm.rows; y++) lines.push(lineText(b.getLine(b.baseY + y), cols));
    return lines;
  }

  scrollbackLines(): string[] {
    const b = this.xterm.buffer.active;
    const cols = this.xterm.cols;
    const lines: string[] = [];
    for (let y = 0; y < b.baseY; y++) lines.push(lineText(b.getLine(y), cols));
    return lines;
  }

  /** The visible screen as text: never-written cells trimmed (written spaces kept), trailing blank rows dropped. */
  text(): string {
    return screenText(this.visibleLines());
  }

  /** A string that changes whenever anything visible changes (for "stable" waits). */
  frameKey(): string {
    const c = this.cursor;
    return `${c.row},${c.col},${c.visible ? 1 : 0},${this.isAltScreen ? 1 : 0}\n${this.visibleLines().join('\n')}`;
  }

  snapshot(options: SnapshotOptions = {}): ScreenSnapshot {
    const snap: ScreenSnapshot = {
      rows: this.rows,
      cols: this.cols,
      cursor: this.cursor,
      isAltScreen: this.isAltScreen,
      visibleLines: this.visibleLines(),
    };
    if (options.includeScrollback) snap.scrollbackLines = this.scrollbackLines();
    if (options.includeCells) {
      snap.cells = this.cells();
      const style = cursorStyleOf(this.xterm);
      if (style) snap.cursorStyle = style;
    }
    return snap;
  }

  private cells(): SnapshotCell[][] {
    const b = this.xterm.buffer.active;
    const scratch = b.getNullCell();
    const rows: SnapshotCell[][] = [];
    const previous = this.lastRows;
    for (let y = 0; y < this.xterm.rows; y++) rows.push(rowCells(b.getLine(b.baseY + y), this.xterm.cols, scratch, previous?.[y]));
    this.lastRows = rows;
    return rows;
  }

  dispose(): void {
    this.xterm.dispose();
  }
}

export function screenText(lines: string[]): string {
  let end = lines.length;
  while (end > 0 && lines[end - 1] === '') end--;
  return lines.slice(0, end).join('\n');
}

/** DECSCUSR's shape, kept by xterm.js in its core's private modes. */
function cursorStyleOf(term: XTerm): 'underline' | 'bar' | undefined {
  const core = (term as unknown as { _core?: { coreService?: { decPrivateModes?: { cursorStyle?: string } } } })._core;
  const style = core?.coreService?.decPrivateModes?.cursorStyle;
  return style === 'underline' || style === 'bar' ? style : undefined;
}

/**
 * xterm.js defers parsing an idle terminal's next write by a setTimeout (>= 1 ms
 * in Node), except right after user input, when it parses at once to cut
 * echo latency. Raising that same flag when nothing is queued makes output
 * visible on the tick it arrives (spawn-to-first-screen 1.8x → 0.9–1.5x node-pty
 * alone). Without the internal, writes just stay deferred.
 */
function parseNextWriteNow(term: XTerm): void {
  const buffer = (term as unknown as { _core?: { _writeBuffer?: { _didUserInput?: boolean } } })._core?._writeBuffer;
  if (buffer && typeof buffer._didUserInput === 'boolean') buffer._didUserInput = true;
}

/** DECTCEM (cursor shown/hidden) is not in xterm.js's public modes; read the core flag. */
function isCursorHidden(term: XTerm): boolean {
  const core = (term as unknown as { _core?: { coreService?: { isCursorHidden?: boolean } } })._core;
  return core?.coreService?.isCursorHidden === true;
}
