import type { Terminal as XTerm } from '@xterm/headless';

/**
 * A cell holds one character and whatever joins it (combining marks, ZWJ
 * sequences) as a string with no bound in xterm.js. REP then copies that
 * string into every repeated cell: 12 KB of a hostile cast ('e' with 5,686
 * combining acutes, then `CSI 999999999 b`, cut to a screenful by the REP
 * guard) took `tapedeck snapshot` past a 4 GB heap. Terminals bound a cell:
 * tmux keeps 21 bytes, xterm a few combining characters. tapedeck keeps up to
 * 64 UTF-16 units (the longest emoji ZWJ sequences are under 20) and drops
 * what joins after that; a width the joining character asks for still applies.
 */
export const MAX_CELL_UNITS = 64;

/** xterm.js's BufferLine: CELL_SIZE words per cell; content word flags. */
const CELL_SIZE = 3;
const IS_COMBINED = 1 << 21;
const WIDTH_MASK = 3 << 22;

interface RawBufferLine {
  _data: Uint32Array;
  _combined: Record<number, string>;
  addCodepointToCell(index: number, codePoint: number, width: number): void;
}

const patched = new WeakSet<object>();

/** Installs the bound on the terminal's BufferLine class (once; left alone if its shape is not the expected one). */
export function capCellClusters(term: XTerm): void {
  const line = (term as unknown as { _core?: { buffer?: { lines?: { get(i: number): unknown } } } })._core?.buffer?.lines?.get(0) as RawBufferLine | undefined;
  const proto = line ? (Object.getPrototypeOf(line) as RawBufferLine) : undefined;
  if (!line || !proto || patched.has(proto)) return;
  if (typeof proto.addCodepointToCell !== 'function' || !(line._data instanceof Uint32Array) || typeof line._combined !== 'object') return;
  const add = proto.addCodepointToCell;
  proto.addCodepointToCell = function (this: RawBufferLine, index: number, codePoint: number, width: number): void {
    const content = this._data[index * CELL_SIZE];
    if (content & IS_COMBINED && (this._combined[index]?.length ?? 0) >= MAX_CELL_UNITS) {
      if (width) this._data[index * CELL_SIZE] = (content & ~WIDTH_MASK) | (width << 22);
      return;
    }
    add.call(this, index, codePoint, width);
  };
  patched.add(proto);
}
