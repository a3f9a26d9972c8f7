import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { cellRows, runParity, type ParityCase, type ParityResult } from '../helpers/parity.js';

/**
 * Parity with tmux (tmux 3.3a is the oracle): bash readline, python curses
 * across a resize, whiptail and nano, each driven with the same bytes in
 * tapedeck and in a tmux pane of the same size, screens compared cell for cell.
 */
const FIXTURES = join(ROOT, 'test/fixtures/parity');
const EMOJI = /[\u{1F300}-\u{1FAFF}\u{2728}\u{2B50}]/u;

function expectParity(r: ParityResult): void {
  expect(cellRows(r.tapedeck)).toEqual(cellRows(r.tmux));
  expect(r.tapedeck.cursor).toEqual(r.tmux.cursor);
  expect(r.tapedeck.lines.join('\n')).toMatch(EMOJI);
}

const cases: Record<string, ParityCase> = {
  'bash readline editing a line with CJK and emoji': {
    command: ['bash', '--norc', '--noprofile'],
    env: { PS1: '$ ', HISTFILE: '' },
    rows: 10,
    cols: 40,
    cwd: FIXTURES,
    steps: [
      { waitFor: '$ ' },
      // Input goes to a program that is reading it (readline, newt and nano switch the tty
      // mode after drawing; keys typed before that are handled by the tty, differently).
      { settle: 50 },
      { type: 'echo 漢字_😀 done' },
      { press: ['Left', 'Left', 'Left', 'Left', 'Left', 'Left'] },
      { type: 'ab🚀' },
      { press: 'Backspace' },
      { press: 'Enter' },
      { waitFor: '漢字_ab😀 done\n$ ' },
      { settle: 50 },
      // A line longer than the screen: readline wraps it by cells.
      { type: 'echo ✨✨✨✨✨✨✨✨✨✨✨✨✨✨✨✨✨✨ 漢字漢字漢字 end' },
      { press: ['Home', 'Right', 'Right'] },
      { type: 'Z' },
    ],
    // Each case's final text shows only once its last input was handled.
    final: '$ ecZho ✨',
  },
  'python curses follows a resize to 30x100': {
    command: ['python3', '-I', 'curses_size.py'],
    rows: 24,
    cols: 80,
    cwd: FIXTURES,
    steps: [{ waitFor: 'size 24x80' }, { settle: 50 }, { resize: { rows: 30, cols: 100 } }],
    final: 'size 30x100',
  },
  'whiptail input box with emoji in the title, the text and the entry': {
    command: ['whiptail', '--title', '😀 Parity 漢字', '--inputbox', 'Launch the 🚀 now? ✨ 漢字 text wraps inside the box by cells', '12', '44', 'name:'],
    rows: 20,
    cols: 60,
    cwd: FIXTURES,
    steps: [{ waitFor: 'Cancel' }, { settle: 50 }, { type: ' 漢字🚀x' }],
    final: 'name: 漢字🚀x',
  },
  'nano editing a line with emoji': {
    command: ['nano', '--ignorercfiles', '--restricted', 'new.txt'],
    rows: 16,
    cols: 60,
    cwd: FIXTURES,
    steps: [
      { waitFor: 'new.txt' },
      { settle: 50 },
      { type: 'first 😀 line 漢字\rsecond ✨ line' },
      { press: ['Up', 'End'] },
      { type: ' 🚀' },
    ],
    final: '漢字 🚀',
  },
};

describe.concurrent('parity with tmux: shells and dialogs', () => {
  for (const [name, c] of Object.entries(cases)) {
    it(name, async () => expectParity(await runParity(c)));
  }
});
