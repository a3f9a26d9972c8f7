import type { Terminal as XTerm } from '@xterm/headless';

/**
 * Feeds code points straight to xterm.js's parser, skipping its UTF-8 decoder:
 * a large cast's output is decoded on the reader thread instead (about a tenth
 * of xterm's time on the screen's thread). Does what xterm's
 * InputHandler.parse does around its parser call for a write that no async
 * handler pauses (tapedeck registers none): the dirty rows cleared first, the
 * cursor-move and refresh events after. Undefined when the internals are not
 * there (another xterm.js release): the caller writes text instead.
 */
interface Handler {
  _parser?: { parse(data: Uint32Array, length: number): unknown };
  _parseStack?: { paused: boolean };
  _dirtyRowTracker?: { clearRange(): void; start: number; end: number };
  _activeBuffer?: { x: number; y: number };
  _bufferService?: { rows: number; buffer: { ybase: number; ydisp: number } };
  _onCursorMove?: { fire(): void };
  _onRequestRefreshRows?: { fire(rows: { start: number; end: number }): void };
}

/** xterm.js parses at most this many code points per call (its MAX_PARSEBUFFER_LENGTH). */
const SLICE = 131072;

export type CodepointParser = (codepoints: Uint32Array) => void;

export function codepointParser(term: XTerm): CodepointParser | undefined {
  const h = (term as unknown as { _core?: { _inputHandler?: Handler } })._core?._inputHandler;
  if (!h?._parser || !h._parseStack || !h._dirtyRowTracker || !h._activeBuffer || !h._bufferService || !h._onCursorMove || !h._onRequestRefreshRows) return undefined;
  const { _parser: parser, _parseStack: stack, _dirtyRowTracker: dirty, _bufferService: buffers, _onCursorMove: cursorMove, _onRequestRefreshRows: refresh } = h;
  return (codepoints) => {
    if (stack.paused) throw new Error('xterm.js paused parsing on a synchronous write');
    const x = h._activeBuffer!.x;
    const y = h._activeBuffer!.y;
    dirty.clearRange();
    for (let i = 0; i < codepoints.length; i += SLICE) {
      const slice = codepoints.subarray(i, i + SLICE);
      if (parser.parse(slice, slice.length)) throw new Error('xterm.js paused parsing on a synchronous write');
    }
    if (h._activeBuffer!.x !== x || h._activeBuffer!.y !== y) cursorMove.fire();
    const shift = buffers.buffer.ybase - buffers.buffer.ydisp;
    const start = dirty.start + shift;
    if (start < buffers.rows) refresh.fire({ start: Math.min(start, buffers.rows - 1), end: Math.min(dirty.end + shift, buffers.rows - 1) });
  };
}
