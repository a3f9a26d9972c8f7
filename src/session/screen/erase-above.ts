import type { Terminal as XTerm } from '@xterm/headless';

/**
 * ED 1 (`CSI 1 J`, erase from the top of the screen to the cursor) with the
 * cursor in the last column: xterm.js 6 then clears the wrap flag of the line
 * after the cursor's, but looks it up without the scrollback offset. On a
 * screen with no scrollback yet and the cursor on its last row there is no such
 * line and xterm.js throws (`tapedeck snapshot` of a two-event cast failed with
 * "internal error: Cannot set properties of undefined"); with scrollback it
 * clears the flag of a line above instead. This is xterm.js's own erase with
 * the line taken where it is meant to be (the screen line below the cursor's,
 * when there is one). DECSED (`CSI ? 1 J`) goes the same way, keeping protected
 * cells as xterm.js does. Other modes stay xterm.js's.
 */
interface Handler {
  eraseInDisplay(params: { params: Int32Array | number[] }, respectProtect?: boolean): boolean;
  _restrictCursor(maxCol: number): void;
  _eraseInBufferLine(y: number, start: number, end: number, clearWrap: boolean, respectProtect: boolean): void;
  _resetBufferLine(y: number, respectProtect: boolean): void;
  _activeBuffer: { x: number; y: number; ybase: number; lines: { get(i: number): { isWrapped: boolean } | undefined } };
  _bufferService: { cols: number; rows: number };
  _dirtyRowTracker: { markDirty(y: number): void };
}

function hasShape(handler: Partial<Handler> | undefined): handler is Handler {
  return (
    typeof handler?.eraseInDisplay === 'function' &&
    typeof handler._restrictCursor === 'function' &&
    typeof handler._eraseInBufferLine === 'function' &&
    typeof handler._resetBufferLine === 'function' &&
    typeof handler._dirtyRowTracker?.markDirty === 'function' &&
    typeof handler._activeBuffer?.lines?.get === 'function' &&
    typeof handler._bufferService?.cols === 'number'
  );
}

export function fixEraseAbove(term: XTerm): void {
  const handler = (term as unknown as { _core?: { _inputHandler?: Partial<Handler> } })._core?._inputHandler;
  if (!hasShape(handler)) return; // another xterm.js release: its own erase stays
  const erase = handler.eraseInDisplay;
  handler.eraseInDisplay = function (this: Handler, params, respectProtect = false): boolean {
    if (params.params[0] !== 1) return erase.call(this, params, respectProtect);
    this._restrictCursor(this._bufferService.cols);
    const buffer = this._activeBuffer;
    let y = buffer.y;
    this._dirtyRowTracker.markDirty(y);
    this._eraseInBufferLine(y, 0, buffer.x + 1, true, respectProtect);
    // The whole cursor line is erased: the line below no longer continues it.
    if (buffer.x + 1 >= this._bufferService.cols && y + 1 < this._bufferService.rows) {
      const below = buffer.lines.get(buffer.ybase + y + 1);
      if (below) below.isWrapped = false;
    }
    while (y--) this._resetBufferLine(y, respectProtect);
    this._dirtyRowTracker.markDirty(0);
    return true;
  };
}
