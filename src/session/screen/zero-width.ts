import type { Terminal as XTerm } from '@xterm/headless';
import { codepointWidth } from './unicode-widths.js';

/**
 * A zero-width code point with no character before it on the line (U+200B,
 * U+0301 at column 0) takes no cell in xterm and tmux: there is nothing to
 * join it to, so it is dropped and the cursor stays. xterm.js puts it in a
 * cell of its own and moves on, shifting the rest of the line. Only the first
 * code points of a printed run can be at column 0 with nothing before them (a
 * wrap joins a mark to the last cell of the line above first), so the check
 * costs one comparison per run.
 */
interface PrintingCore {
  _core?: {
    _inputHandler?: {
      print?: (data: Uint32Array, start: number, end: number) => void;
      _activeBuffer?: { x: number };
    };
  };
}

export function dropUnjoinedZeroWidth(term: XTerm): void {
  const handler = (term as unknown as PrintingCore)._core?._inputHandler;
  const print = handler?.print;
  if (!handler || typeof print !== 'function') return; // without the internal, xterm.js's own behaviour stays
  handler.print = function (data: Uint32Array, start: number, end: number): void {
    if (this._activeBuffer?.x === 0) {
      while (start < end && data[start] >= 0x80 && codepointWidth(data[start]) === 0) start++;
      if (start === end) return;
    }
    print.call(this, data, start, end);
  };
}
