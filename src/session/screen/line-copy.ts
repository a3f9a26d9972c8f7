import type { Terminal as XTerm } from '@xterm/headless';

/**
 * xterm.js recycles the oldest scrollback line for every line that scrolls
 * once the scrollback is full, through BufferLine.copyFrom: the cells are one
 * typed-array copy, but it also replaces the line's combined-character and
 * extended-attribute tables with fresh objects filled by for-in, even when
 * both lines have none (the blank line it copies from never has any). That
 * was about 5% of playing a 50 MB cast. The same copy, keeping the line's own
 * empty tables when there is nothing to copy; every field ends as xterm.js
 * leaves it (test/terminal/screen.test.ts holds the two to the same result).
 */
interface RawBufferLine {
  _data: Uint32Array;
  _combined: Record<number, string>;
  _extendedAttrs: Record<number, unknown>;
  length: number;
  isWrapped: boolean;
  copyFrom(line: RawBufferLine): void;
}

function isEmpty(table: object): boolean {
  for (const _ in table) return false;
  return true;
}

export function copyLineFrom(this: RawBufferLine, line: RawBufferLine): void {
  if (this.length !== line.length) this._data = new Uint32Array(line._data);
  else this._data.set(line._data);
  this.length = line.length;
  if (!isEmpty(this._combined) || !isEmpty(line._combined)) {
    this._combined = {};
    for (const el in line._combined) this._combined[el] = line._combined[el];
  }
  if (!isEmpty(this._extendedAttrs) || !isEmpty(line._extendedAttrs)) {
    this._extendedAttrs = {};
    for (const el in line._extendedAttrs) this._extendedAttrs[el] = line._extendedAttrs[el];
  }
  this.isWrapped = line.isWrapped;
}

const patched = new WeakSet<object>();
/** xterm.js's own copyFrom, as found before it was replaced (the test compares the two). */
export let xtermCopyFrom: ((this: unknown, line: unknown) => void) | undefined;

/** Installs copyLineFrom on the terminal's BufferLine class (once; left alone if its shape is not the expected one). */
export function fastLineCopy(term: XTerm): void {
  const line = (term as unknown as { _core?: { buffer?: { lines?: { get(i: number): unknown } } } })._core?.buffer?.lines?.get(0) as RawBufferLine | undefined;
  const proto = line ? (Object.getPrototypeOf(line) as RawBufferLine) : undefined;
  if (!line || !proto || patched.has(proto)) return;
  if (typeof proto.copyFrom !== 'function' || !(line._data instanceof Uint32Array) || typeof line._combined !== 'object' || typeof line._extendedAttrs !== 'object') return;
  xtermCopyFrom = proto.copyFrom as (this: unknown, line: unknown) => void;
  proto.copyFrom = copyLineFrom;
  patched.add(proto);
}
