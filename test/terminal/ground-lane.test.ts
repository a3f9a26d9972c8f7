import { describe, expect, it } from 'vitest';
import { Screen } from '../../src/session/screen/screen.js';
import { removeGroundLane } from '../../src/session/screen/ground-lane.js';
import { rng } from '../helpers/fuzz-gen.js';
import { PIECES, state, stream } from '../helpers/screen-state.js';

// The ground lane against xterm.js's parser alone (both screens otherwise as a Screen has them): the
// same random streams, written in random slices so sequences are cut anywhere, then the whole screen
// state, the attributes and modes the handlers set, and every answer the screen sent back compared.

const LANE_PIECES = [
  ...PIECES,
  // Parameters the lane parses itself: many, empty, huge, and past the parser's limits.
  '\x1b[;m', '\x1b[;;1;;4m', '\x1b[m', '\x1b[0;1;3;4;5;7;9;31;42m', '\x1b[99999999999999999999m', '\x1b[38;5;300m',
  `\x1b[${Array.from({ length: 40 }, (_, i) => 30 + (i % 8)).join(';')}m`, '\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17;18;19;20;21;22;23;24;25;26;27;28;29;30;31;32;33;34;1m',
  '\x1b[2;3H', '\x1b[99;99H', '\x1b[0;0H', '\x1b[3A', '\x1b[2B', '\x1b[C', '\x1b[4E', '\x1b[2F', '\x1b[3d', '\x1b[2;5f', '\x1b[3g', '\x1b[2I', '\x1b[Z',
  '\x1b[3L', '\x1b[2M', '\x1b[0J', '\x1b[1J', '\x1b[0K', '\x1b[2K', '\x1b[3T', '\x1b[1;3r',
  // Answers: the lane dispatches these CSIs, the screen answers through onData.
  '\x1b[6n', '\x1b[5n', '\x1b[c', '\x1b[18t', '\x1b[14t',
  // What the lane leaves to the parser: prefixes, intermediates, sub-parameters, C1, DEL, ESC sequences, strings.
  '\x1b[?1h', '\x1b[?1l', '\x1b[>0q', '\x1b[>c', '\x1b[!p', '\x1b[0 q', '\x1b[38:2::10:20:30m', '\u009b1m', '\u009b0m', '\u0085', '\x7f',
  '\x1b7', '\x1b8', '\x1bD', '\x1bE', '\x1b=', '\x1b>', '\x1b]0;title\x07', '\x1b]2;t\x1b\\', '\x1bP1$r\x1b\\', '\x1b_apc\x1b\\',
  // Cancelled and broken sequences: CAN, SUB, ESC and controls inside a CSI.
  '\x1b[1\x7fm', '\x1b[2\x7f', '\x1b[1?h', '\x1b[1;2 q', '\x1b[1$p', '\x1b[1\x18m', '\x1b[3\x1am', '\x1b[1\x1b[4m', '\x1b[2\nA', '\x1b[1\bm', '\x1b[', '\x1b', '\x07', '\x00', '\x0e', '\x0f',
];

function extra(screen: Screen, answers: string[]) {
  const core = (screen.xterm as unknown as { _core: { _inputHandler: { _curAttrData: { fg: number; bg: number }; _parser: { currentState: number } }; buffer: { scrollTop: number; scrollBottom: number; savedX: number; savedY: number } } })._core;
  const attrs = core._inputHandler._curAttrData;
  return {
    fg: attrs.fg,
    bg: attrs.bg,
    parserState: core._inputHandler._parser.currentState,
    scroll: [core.buffer.scrollTop, core.buffer.scrollBottom],
    modes: { ...screen.xterm.modes },
    answers: answers.join(''),
  };
}

describe('ground lane', () => {
  it('leaves the screen, the attributes, the modes and the answers as xterm.js parser alone does, on 400 random streams', () => {
    const rand = rng(30);
    let compared = 0;
    for (let i = 0; i < 400; i++) {
      const rows = 2 + Math.floor(rand() * 8);
      const cols = [2, 3, 7, 13, 40, 80][Math.floor(rand() * 6)];
      const lane = new Screen({ rows, cols, scrollback: 5 });
      const plain = new Screen({ rows, cols, scrollback: 5 });
      expect(removeGroundLane(plain.xterm)).toBe(true);
      const laneAnswers: string[] = [];
      const plainAnswers: string[] = [];
      lane.xterm.onData((d) => laneAnswers.push(d));
      plain.xterm.onData((d) => plainAnswers.push(d));
      const text = stream(rand, 200 + Math.floor(rand() * 1500), LANE_PIECES);
      // Written in random slices (as text and as code points, the cast player's way), so sequences are cut anywhere.
      for (let at = 0; at < text.length; ) {
        const n = 1 + Math.floor(rand() * 200);
        const piece = text.slice(at, at + n);
        if (rand() < 0.5) {
          lane.writeNow(piece);
          plain.writeNow(piece);
        } else {
          const codepoints = Uint32Array.from([...piece].map((c) => c.codePointAt(0)!));
          lane.writeCodepointsNow(codepoints);
          plain.writeCodepointsNow(codepoints.slice());
        }
        at += n;
      }
      const ours = { ...state(lane), ...extra(lane, laneAnswers) };
      const theirs = { ...state(plain), ...extra(plain, plainAnswers) };
      if (JSON.stringify(ours) !== JSON.stringify(theirs)) expect({ stream: i, text, ours }).toEqual({ stream: i, text, ours: theirs });
      compared++;
      lane.dispose();
      plain.dispose();
    }
    expect(compared).toBe(400);
  });

  it('pauses and resumes with an async CSI handler as the parser does', async () => {
    const lane = new Screen({ rows: 3, cols: 20 });
    const plain = new Screen({ rows: 3, cols: 20 });
    expect(removeGroundLane(plain.xterm)).toBe(true);
    for (const s of [lane, plain]) {
      // A handler that takes its time before letting SGR run: the rest of the write waits for it.
      s.xterm.parser.registerCsiHandler({ final: 'm' }, () => new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5)));
    }
    const text = 'ab\x1b[1mcd\x1b[31mef\r\ngh\x1b[0mij';
    await Promise.all([lane.write(text), plain.write(text)]);
    expect(state(lane)).toEqual(state(plain));
    expect(lane.visibleLines()).toEqual(['abcdef', 'ghij', '']);
    lane.dispose();
    plain.dispose();
  });

  it('leaves the parser where xterm.js does when a CSI handler throws, so the next write reads the same', () => {
    const lane = new Screen({ rows: 3, cols: 20 });
    const plain = new Screen({ rows: 3, cols: 20 });
    expect(removeGroundLane(plain.xterm)).toBe(true);
    const codepoints = (text: string) => Uint32Array.from([...text].map((c) => c.codePointAt(0)!));
    for (const s of [lane, plain]) {
      let thrown = false;
      s.xterm.parser.registerCsiHandler({ final: 'K' }, () => {
        if (thrown) return false;
        thrown = true;
        throw new Error('a handler that fails once');
      });
      // The throw leaves xterm.js in the CSI's parameter state, so ";7m" continues that CSI (SGR 1;7).
      expect(() => s.writeCodepointsNow(codepoints('ab\x1b[1K'))).toThrow('a handler that fails once');
      s.writeCodepointsNow(codepoints(';7mX'));
    }
    expect(lane.visibleLines()[0]).toBe('abX');
    expect(state(lane)).toEqual(state(plain));
    expect(extra(lane, [])).toEqual(extra(plain, []));
    lane.dispose();
    plain.dispose();
  });

  it('is installed on a Screen, and the text it writes reads back', async () => {
    const s = new Screen({ rows: 3, cols: 10 });
    expect(removeGroundLane(s.xterm)).toBe(true);
    expect(removeGroundLane(s.xterm)).toBe(false);
    const t = new Screen({ rows: 3, cols: 10 });
    await t.write('\x1b[1;31mred\x1b[0m\r\n\x1b[2;5Hx\x1b[3;1H\x1b[7minv');
    expect(t.visibleLines()).toEqual(['red', '    x', 'inv']);
    expect(t.snapshot({ includeCells: true }).cells![0][0]).toMatchObject({ char: 'r', bold: true });
    s.dispose();
    t.dispose();
  });

  it('calls the CSI handlers there are at each write: registered, disposed or cleared after the lane has looked them up', () => {
    const screen = new Screen({ rows: 3, cols: 20 });
    const parser = (screen.xterm as unknown as { _core: { _inputHandler: { _parser: { clearCsiHandler(id: object): void } } } })._core._inputHandler._parser;
    const calls: string[] = [];
    try {
      screen.writeNow('\x1b[1mA\x1b[2X\x1b[3y'); // the lane has looked up 'm', 'X' and 'y' (no handler)
      const onX = screen.xterm.parser.registerCsiHandler({ final: 'X' }, (params) => (calls.push(`X${params.join(';')}`), true));
      const onY = screen.xterm.parser.registerCsiHandler({ final: 'y' }, (params) => (calls.push(`y${params.join(';')}`), true));
      screen.writeNow('\x1b[3X\x1b[4;5y');
      expect(calls).toEqual(['X3', 'y4;5']);
      onX.dispose();
      screen.writeNow('\x1b[6X'); // xterm.js's own ECH again
      expect(calls).toEqual(['X3', 'y4;5']);
      parser.clearCsiHandler({ final: 'y' }); // a new list for 'y' from here on
      screen.writeNow('\x1b[7y');
      screen.xterm.parser.registerCsiHandler({ final: 'y' }, () => (calls.push('y again'), true));
      screen.writeNow('\x1b[8y');
      expect(calls).toEqual(['X3', 'y4;5', 'y again']);
      onY.dispose();
    } finally {
      screen.dispose();
    }
  });
});
