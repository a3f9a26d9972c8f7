import { describe, expect, it } from 'vitest';
import { Screen } from '../../src/session/screen/screen.js';
import { removeFastPrint } from '../../src/session/screen/fast-print.js';
import { rng } from '../helpers/fuzz-gen.js';

// The fast print against xterm.js's own print (with tapedeck's widths and zero-width rule, as a
// Screen has them): the same random streams into both, then every cell word, combined character,
// extended attribute, wrap flag, the cursor and the join state compared.

const PIECES = [
  'lorem ipsum', 'x', 'ab', 'café', 'e\u0301', '\u0301', '\u200b', '中文', '😀', '👍🏽', '👨\u200d👩', '🥲', '✓', 'Ω',
  '\r\n', '\n', '\r', '\b', '\t', ' ', '\x1b[K', '\x1b[1K', '\x1b[2J', '\x1b[H', '\x1b[3;5H', '\x1b[2;1H', '\x1b[5G',
  '\x1b[1m', '\x1b[0m', '\x1b[31;42m', '\x1b[38;2;1;2;3m', '\x1b[4:3m', '\x1b[58;5;196m', '\x1b[24m', '\x1b[7m',
  '\x1b(0', '\x1b(B', 'lqqk', '\x1b[4h', '\x1b[4l', '\x1b[?7l', '\x1b[?7h', '\x1b[2@', '\x1b[3P', '\x1b[2X',
  '\x1b]8;;https://e.x/\x07', '\x1b]8;;\x07', '\x1b[?1049h', '\x1b[?1049l', '\x1b[2;4r', '\x1b[r', '\x1bM', '\x1b[3S',
  '\x1b[5b', 'wide中x', '\x1b[?25l', '\x1bc', '\x1b[D', '\x1b[2D', '中\x1b[2Dx', '中\x1b[Dy',
];

function stream(rand: () => number, length: number): string {
  let out = '';
  while (out.length < length) {
    const r = rand();
    // Mostly plain text, as programs print, with every other piece mixed in.
    out += r < 0.4 ? 'abcdefghij klmnopqrstuvwxyz0123456789'.slice(0, 1 + Math.floor(rand() * 30)) : PIECES[Math.floor(rand() * PIECES.length)];
  }
  return out;
}

type RawLine = { _data: Uint32Array; _combined: Record<number, string>; _extendedAttrs: Record<number, { underlineStyle?: number; underlineColor?: number; urlId?: number } | undefined>; isWrapped: boolean; length: number };
type RawBuffer = { x: number; y: number; ybase: number; lines: { length: number; get(i: number): RawLine } };
type Core = { _core: { buffers: { normal: RawBuffer; alt: RawBuffer; active: RawBuffer }; _inputHandler: { _parser: { precedingJoinState: number } } } };

function state(screen: Screen) {
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

describe('fast print', () => {
  it('leaves every cell, the cursor and the join state as xterm.js print does, on 400 random streams', () => {
    const rand = rng(26);
    let compared = 0;
    for (let i = 0; i < 400; i++) {
      const rows = 2 + Math.floor(rand() * 8);
      const cols = [2, 3, 7, 13, 40, 80][Math.floor(rand() * 6)];
      const fast = new Screen({ rows, cols, scrollback: 5 });
      const plain = new Screen({ rows, cols, scrollback: 5 });
      expect(removeFastPrint(plain.xterm)).toBe(true);
      const text = stream(rand, 200 + Math.floor(rand() * 1500));
      // Written in random slices, so runs start and end anywhere (mid-line, mid-sequence, mid-pair).
      for (let at = 0; at < text.length; ) {
        const n = 1 + Math.floor(rand() * 200);
        const piece = text.slice(at, at + n);
        fast.writeNow(piece);
        plain.writeNow(piece);
        at += n;
        if (rand() < 0.05) {
          const size = [2 + Math.floor(rand() * 8), [2, 5, 13, 40, 80][Math.floor(rand() * 5)]] as const;
          fast.resize(...size);
          plain.resize(...size);
        }
      }
      const ours = state(fast);
      const theirs = state(plain);
      if (JSON.stringify(ours) !== JSON.stringify(theirs)) expect({ stream: i, text, ours }).toEqual({ stream: i, text, ours: theirs });
      compared++;
      fast.dispose();
      plain.dispose();
    }
    expect(compared).toBe(400);
  });

  it('is the print a Screen uses, and the text it writes reads back', async () => {
    const s = new Screen({ rows: 3, cols: 10 });
    const plain = new Screen({ rows: 3, cols: 10 });
    // Installed: removing it from a fresh screen succeeds once, then there is nothing to remove.
    expect(removeFastPrint(plain.xterm)).toBe(true);
    expect(removeFastPrint(plain.xterm)).toBe(false);
    await s.write('héllo wörld, 中 ✓\r\n\x1b[1mbold\x1b[0m e\u0301');
    expect(s.visibleLines()).toEqual(['héllo wörl', 'd, 中 ✓', 'bold e\u0301']);
    s.dispose();
    plain.dispose();
  });
});
