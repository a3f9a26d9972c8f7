import { expect, test } from 'vitest';
import { terminalSize } from '../../src/replayer/vhs/geometry.js';
import { defaultOptions } from '../../src/replayer/vhs/options.js';
import { windowLayout } from '../../src/render/vhs/window.js';

/**
 * The terminal size VHS gets (vhs.go Setup: the viewport is Width x Height
 * less twice the Padding, twice the Margin when MarginFill is set, which it
 * is by default, and the WindowBarSize when WindowBar is set; xterm.js's fit
 * fills it with cells, less ttyd's 10 px), held to the row counts of the
 * .ascii files VHS itself committed (examples/cli-ui/text-prompt.ascii: 8
 * rows; examples/glow/glow-simple.ascii: 30 rows).
 */
const size = (settings: Partial<ReturnType<typeof defaultOptions>>) => terminalSize({ ...defaultOptions(), ...settings });

test('VHS defaults and VHS\'s own committed outputs', () => {
  expect(size({})).toMatchObject({ cols: 76, rows: 15, cellWidth: 14, cellHeight: 30 });
  // text-prompt.tape: Set FontSize 32, Width 2200, Height 500: (500 - 120 - 10) / ceil(1.32 x 32) = 370 / 43.
  expect(size({ fontSize: 32, width: 2200, height: 500 }).rows).toBe(8);
  // glow-simple.tape: Width 1000, Height 1050: 920 / 30 (without ttyd's 10 px it would be 31).
  expect(size({ width: 1000, height: 1050 }).rows).toBe(30);
});

test('Margin counts with VHS\'s default MarginFill, the bar takes rows, LineHeight and LetterSpacing size the cell', () => {
  expect(size({ margin: 40 })).toMatchObject({ cols: Math.floor((1200 - 120 - 80 - 10) / 14), rows: Math.floor((600 - 120 - 80 - 10) / 30) });
  expect(size({ margin: 40, marginFill: '' })).toMatchObject({ cols: 76, rows: 15 });
  expect(size({ windowBar: 'Colorful' }).rows).toBe(Math.floor((600 - 120 - 30 - 10) / 30));
  expect(size({ lineHeight: 1.5 }).cellHeight).toBe(45);
  expect(size({ letterSpacing: 3 }).cellWidth).toBe(16);
  // The picture's window follows the same box: the terminal grid starts Padding inside the margin and bar.
  expect(windowLayout({ width: 1200, height: 600, padding: 60, margin: 40, marginFill: '#000000', windowBar: 'Rings', windowBarSize: 30, borderRadius: 0, background: '#171717' }))
    .toMatchObject({ x: 40, y: 40, width: 1120, height: 520, grid: { x: 100, y: 130, width: 1000, height: 370 } });
});
