import type { Terminal as XTerm } from '@xterm/headless';

/**
 * A cell holds one character and whatever joins it (combining marks, ZWJ
 * sequences) as a string with no bound in xterm.js. REP then copies that
 * string into every repeated cell: 12 KB of a hostile cast ('e' with 5,686
 * combining acutes, then `CSI 999999999 b`, cut to a screenful by the REP
 * guard) took `tapedeck snapshot` past a 4 GB heap. Terminals bound a cell:
 * tmux keeps 21 bytes, xterm a few combining characters. tapedeck keeps at
 * most 64 UTF-16 units (the longest emoji ZWJ sequences are under 20) and
 * drops what joins after that; a width the joining character asks for still
 * applies.
 *
 * The cell method is xterm.js's BufferLine's, shared by every terminal in the
 * process, so the bound holds only while a capped terminal is parsing: an
 * @xterm/headless Terminal of the caller's own stays as xterm.js made it.
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
type Parse = (this: unknown, data: Uint32Array, length: number, promiseResult?: boolean) => unknown;

const patched = new WeakSet<object>();
/** How many capped terminals are parsing right now (parsing is synchronous; a paused write resumes through parse again). */
let parsing = 0;

function capOnPrototype(proto: RawBufferLine): void {
  if (patched.has(proto)) return;
  const add = proto.addCodepointToCell;
  proto.addCodepointToCell = function (this: RawBufferLine, index: number, codePoint: number, width: number): void {
    const content = this._data[index * CELL_SIZE];
    if (parsing > 0 && content & IS_COMBINED && (this._combined[index]?.length ?? 0) + (codePoint > 0xffff ? 2 : 1) > MAX_CELL_UNITS) {
      if (width) this._data[index * CELL_SIZE] = (content & ~WIDTH_MASK) | (width << 22);
      return;
    }
    add.call(this, index, codePoint, width);
  };
  patched.add(proto);
}

/** Bounds the cells of this terminal (left alone if xterm.js's shapes are not the expected ones). */
export function capCellClusters(term: XTerm): void {
  const core = (term as unknown as { _core?: { buffer?: { lines?: { get(i: number): unknown } }; _inputHandler?: { _parser?: { parse?: Parse } } } })._core;
  const line = core?.buffer?.lines?.get(0) as RawBufferLine | undefined;
  const proto = line ? (Object.getPrototypeOf(line) as RawBufferLine) : undefined;
  const parser = core?._inputHandler?._parser;
  if (!line || !proto || typeof parser?.parse !== 'function') return;
  if (typeof proto.addCodepointToCell !== 'function' || !(line._data instanceof Uint32Array) || typeof line._combined !== 'object') return;
  capOnPrototype(proto);
  const parse = parser.parse;
  parser.parse = function (this: unknown, data: Uint32Array, length: number, promiseResult?: boolean) {
    parsing++;
    try {
      return parse.call(this, data, length, promiseResult);
    } finally {
      parsing--;
    }
  };
}
