import { describe, expect, it } from 'vitest';
import { Screen } from '../../src/session/screen/screen.js';
import { paletteRgb } from '../../src/session/screen/colors.js';
import { lineText } from '../../src/session/screen/line-text.js';
import { copyLineFrom, xtermCopyFrom } from '../../src/session/screen/line-copy.js';

async function screenWith(data: string, rows = 4, cols = 20, scrollback?: number): Promise<Screen> {
  const s = new Screen({ rows, cols, scrollback });
  await s.write(Buffer.from(data, 'utf8'));
  return s;
}

describe('Screen snapshots', () => {
  it('reports attributes and resolved colours per cell', async () => {
    const s = await screenWith(
      '\x1b[1mB\x1b[0m\x1b[3mI\x1b[0m\x1b[4mU\x1b[0m\x1b[7mV\x1b[0m\x1b[2mD\x1b[0m\x1b[9mS\x1b[0m' +
        '\x1b[31mr\x1b[0m\x1b[91mR\x1b[0m\x1b[38;5;196mp\x1b[0m\x1b[48;5;244mg\x1b[0m\x1b[38;2;1;2;3mt\x1b[0m',
    );
    const cells = s.snapshot({ includeCells: true }).cells![0];
    expect(cells.slice(0, 6).map((c) => [c.char, c.bold, c.italic, c.underline, c.inverse, c.dim, c.strikethrough])).toEqual([
      ['B', true, false, false, false, false, false],
      ['I', false, true, false, false, false, false],
      ['U', false, false, true, false, false, false],
      ['V', false, false, false, true, false, false],
      ['D', false, false, false, false, true, false],
      ['S', false, false, false, false, false, true],
    ]);
    expect(cells[6].fg).toEqual({ kind: 'palette', index: 1, rgb: '#cd3131', slot: 'red' });
    expect(cells[7].fg).toEqual({ kind: 'palette', index: 9, rgb: '#f14c4c', slot: 'brightRed' });
    expect(cells[8].fg).toEqual({ kind: 'palette', index: 196, rgb: '#ff0000', slot: 'palette:196' });
    expect(cells[9].bg).toEqual({ kind: 'palette', index: 244, rgb: '#808080', slot: 'palette:244' });
    expect(cells[10].fg).toEqual({ kind: 'rgb', rgb: '#010203', slot: 'rgb' });
    expect(cells[11]).toMatchObject({ char: '', fg: { kind: 'default', slot: 'default' }, bold: false });
    s.dispose();
  });

  it('marks wide characters and their right halves', async () => {
    const s = await screenWith('a漢b');
    const cells = s.snapshot({ includeCells: true }).cells![0];
    expect(cells.slice(0, 4).map((c) => [c.char, c.width])).toEqual([['a', 1], ['漢', 2], ['', 0], ['b', 1]]);
    expect(s.visibleLines()[0]).toBe('a漢b');
    s.dispose();
  });

  it('tracks cursor visibility, alternate screen and scrollback', async () => {
    const s = await screenWith('1\r\n2\r\n3\r\n4\r\n5\r\n6', 3, 10);
    expect(s.snapshot({ includeScrollback: true })).toEqual({
      rows: 3, cols: 10, cursor: { row: 2, col: 1, visible: true }, isAltScreen: false,
      visibleLines: ['4', '5', '6'], scrollbackLines: ['1', '2', '3'],
    });
    await s.write('\x1b[?1049h\x1b[?25l\x1b[2;3Halt');
    expect(s.snapshot()).toMatchObject({ isAltScreen: true, cursor: { row: 1, col: 5, visible: false }, visibleLines: ['', '  alt', ''] });
    await s.write('\x1b[?1049l\x1b[?25h');
    expect(s.snapshot()).toMatchObject({ isAltScreen: false, cursor: { visible: true }, visibleLines: ['4', '5', '6'] });
    s.dispose();
  });

  it('joins UTF-8 split across writes', async () => {
    const s = new Screen({ rows: 2, cols: 10 });
    const bytes = Buffer.from('é✓', 'utf8');
    for (const b of bytes) void s.write(Buffer.from([b]));
    await s.flush();
    expect(s.text()).toBe('é✓');
    s.dispose();
  });

  it('shares cells and unchanged rows between snapshots, frozen (a screenshot loop allocates little per frame)', async () => {
    const s = await screenWith('\x1b[31mab\x1b[0m\r\nsame row\r\n\x1b[38;2;9;8;7mrgb\x1b[0m', 4, 12);
    const a = s.snapshot({ includeCells: true }).cells!;
    await s.write('\x1b[1;3Hc');
    const b = s.snapshot({ includeCells: true }).cells!;
    expect(b[1]).toBe(a[1]); // unchanged rows: the same array
    expect(b[0]).not.toBe(a[0]);
    expect(b[0].map((c) => c.char).join('')).toBe('abc');
    expect(b[0][0]).toBe(a[0][0]); // the same red "a"
    expect(b[2][0].fg).toEqual({ kind: 'rgb', rgb: '#090807', slot: 'rgb' });
    expect(b[0][0].fg).toBe(b[0][1].fg);
    expect(Object.isFrozen(b[0]) && Object.isFrozen(b[0][0]) && Object.isFrozen(b[0][0].fg)).toBe(true);
    expect(() => {
      (b[0][0] as { char: string }).char = 'x';
    }).toThrow(TypeError);
    s.dispose();
  });

  it('reads each line as xterm.js translateToString does (wide, combined, astral, lone surrogates, gaps, shrunk widths)', async () => {
    const s = new Screen({ rows: 12, cols: 30, scrollback: 50 });
    const parts = ['hello', '漢字', '🎉', 'e\u0301', '\u200b', '\ud800', 'x\u0301\u0302', '👨‍💻', '\t', '\x1b[5C', '\x1b[31mred\x1b[0m', ' ', '\r\n', '\x1b[K', 'A\x1b[9b', '\x1b[2;25H', '\x1b[10X'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    let compared = 0;
    for (let round = 0; round < 40; round++) {
      let text = '';
      for (let i = 0; i < 30; i++) text += parts[Math.floor(next() * parts.length)];
      await s.write(text);
      if (round % 10 === 9) s.resize(8 + Math.floor(next() * 10), 10 + Math.floor(next() * 30));
      const buffer = s.xterm.buffer.active;
      for (let y = 0; y < buffer.length; y++) {
        const line = buffer.getLine(y)!;
        for (const cols of [s.cols, 5]) {
          expect(lineText(line, cols), `round ${round}, line ${y}`).toBe(line.translateToString(true, 0, cols));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
    s.dispose();
  });

  it('recycles scrolled lines as xterm.js does (combined characters, extended underlines, other widths)', async () => {
    const a = await screenWith('plain\r\ne\u0301\u0302 x\u0301\r\n\x1b[4:3m\x1b[58;5;196mcurly\x1b[0m\r\n\x1b[41m   \x1b[0m\r\n', 6, 20);
    const b = await screenWith('other\r\n漢\u0301', 3, 13);
    expect(xtermCopyFrom).toBeTypeOf('function');
    type Line = { clone(): Line; _data: Uint32Array; _combined: object; _extendedAttrs: object; length: number; isWrapped: boolean };
    const lines: Line[] = [];
    for (const s of [a, b]) for (let y = 0; y < s.rows; y++) lines.push((s.xterm as unknown as { _core: { buffer: { lines: { get(i: number): Line } } } })._core.buffer.lines.get(y));
    lines[1].isWrapped = true;
    const state = (l: Line) => ({ data: [...l._data], combined: { ...l._combined }, extended: Object.keys(l._extendedAttrs), length: l.length, wrapped: l.isWrapped });
    let pairs = 0;
    for (const target of lines) {
      for (const source of lines) {
        const theirs = target.clone();
        const ours = target.clone();
        xtermCopyFrom!.call(theirs, source);
        copyLineFrom.call(ours as never, source as never);
        expect(state(ours)).toEqual(state(theirs));
        expect(Object.values(ours._extendedAttrs)).toEqual(Object.values(theirs._extendedAttrs));
        pairs++;
      }
    }
    expect(pairs).toBe(81);
    // And through the screen: a full scrollback keeps recycling lines, the text stays right.
    const s = new Screen({ rows: 3, cols: 10, scrollback: 2 });
    for (let i = 0; i < 20; i++) await s.write(`l${i} e\u0301\r\n`);
    expect(s.scrollbackLines()).toEqual(['l16 e\u0301', 'l17 e\u0301']);
    expect(s.visibleLines()).toEqual(['l18 e\u0301', 'l19 e\u0301', '']);
    for (const x of [a, b, s]) x.dispose();
  });

  it('resolves the 256-colour cube and greys', () => {
    expect([paletteRgb(16), paletteRgb(21), paletteRgb(231), paletteRgb(232), paletteRgb(255)]).toEqual([
      '#000000', '#0000ff', '#ffffff', '#080808', '#eeeeee',
    ]);
  });
});
