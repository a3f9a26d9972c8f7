import type { Screen } from '../../src/session/screen/screen.js';

// Random terminal output and the whole of a screen's state, for holding one of tapedeck's fast paths in
// front of xterm.js (fast print, the ground lane) to xterm.js alone: the same streams into both screens,
// then every cell word, combined character, extended attribute, wrap flag, the cursor and the join state.

export const PIECES = [
  'lorem ipsum', 'x', 'ab', 'café', 'e\u0301', '\u0301', '\u200b', '中文', '😀', '👍🏽', '👨\u200d👩', '🥲', '✓', 'Ω',
  '\r\n', '\n', '\r', '\b', '\t', ' ', '\x1b[K', '\x1b[1K', '\x1b[2J', '\x1b[H', '\x1b[3;5H', '\x1b[2;1H', '\x1b[5G',
  '\x1b[1m', '\x1b[0m', '\x1b[31;42m', '\x1b[38;2;1;2;3m', '\x1b[4:3m', '\x1b[58;5;196m', '\x1b[24m', '\x1b[7m',
  '\x1b(0', '\x1b(B', 'lqqk', '\x1b[4h', '\x1b[4l', '\x1b[?7l', '\x1b[?7h', '\x1b[2@', '\x1b[3P', '\x1b[2X',
  '\x1b]8;;https://e.x/\x07', '\x1b]8;;\x07', '\x1b[?1049h', '\x1b[?1049l', '\x1b[2;4r', '\x1b[r', '\x1bM', '\x1b[3S',
  '\x1b[5b', 'wide中x', '\x1b[?25l', '\x1bc', '\x1b[D', '\x1b[2D', '中\x1b[2Dx', '中\x1b[Dy',
];

export function stream(rand: () => number, length: number, pieces: readonly string[] = PIECES): string {
  let out = '';
  while (out.length < length) {
    const r = rand();
    // Mostly plain text, as programs print, with every other piece mixed in.
    out += r < 0.4 ? 'abcdefghij klmnopqrstuvwxyz0123456789'.slice(0, 1 + Math.floor(rand() * 30)) : pieces[Math.floor(rand() * pieces.length)];
  }
  return out;
}

type RawLine = { _data: Uint32Array; _combined: Record<number, string>; _extendedAttrs: Record<number, { underlineStyle?: number; underlineColor?: number; urlId?: number } | undefined>; isWrapped: boolean; length: number };
type RawBuffer = { x: number; y: number; ybase: number; lines: { length: number; get(i: number): RawLine } };
type Core = { _core: { buffers: { normal: RawBuffer; alt: RawBuffer; active: RawBuffer }; _inputHandler: { _parser: { precedingJoinState: number } } } };

export function state(screen: Screen) {
  const core = (screen.xterm as unknown as Core)._core;
  const buffer = (b: RawBuffer) => {
    const lines = [];
    for (let i = 0; i < b.lines.length; i++) {
      const l = b.lines.get(i);
      const extended = Object.entries(l._extendedAttrs).map(([k, v]) => [k, v?.underlineStyle, v?.underlineColor, v?.urlId]);
      lines.push({ data: Array.from(l._data.subarray(0, l.length * 3)), combined: { ...l._combined }, extended, wrapped: l.isWrapped });
    }
    return { x: b.x, y: b.y, ybase: b.ybase, lines };
  };
  return {
    normal: buffer(core.buffers.normal),
    alt: buffer(core.buffers.alt),
    altActive: core.buffers.active === core.buffers.alt,
    join: core._inputHandler._parser.precedingJoinState,
  };
}

