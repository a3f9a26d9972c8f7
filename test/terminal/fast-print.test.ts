import { describe, expect, it } from 'vitest';
import { Screen } from '../../src/session/screen/screen.js';
import { removeFastPrint } from '../../src/session/screen/fast-print.js';
import { rng } from '../helpers/fuzz-gen.js';
import { state, stream } from '../helpers/screen-state.js';

// The fast print against xterm.js's own print (with tapedeck's widths and zero-width rule, as a
// Screen has them): the same random streams into both, then every cell word, combined character,
// extended attribute, wrap flag, the cursor and the join state compared.

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
