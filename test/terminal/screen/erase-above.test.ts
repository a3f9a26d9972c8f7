import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tapedeck, useFileTempDirs } from '../../helpers/cli.js';
import { runParity } from '../../helpers/parity.js';
import { Screen } from '../../../src/session/screen/screen.js';
import { spawnTerminal } from '../../../src/index.js';

/**
 * ED 1 (erase from the top to the cursor) with the cursor in the last column:
 * xterm.js 6 looks up the line below without the scrollback offset, so on a
 * screen with no scrollback yet and the cursor on its last row it threw, and a
 * valid cast ended in "internal error". The screen now erases as xterm and tmux do.
 */
const tempDir = useFileTempDirs();
// Draws four lines, puts the cursor in the bottom-right cell, erases above it, then says so.
const program = (sequence: string) =>
  `import sys, time\nsys.stdout.write("one\\r\\ntwo\\r\\nthree\\r\\nfour  wrapped-line\\x1b[99;99H${sequence}\\x1b[2;1Hdone")\nsys.stdout.flush()\ntime.sleep(30)\n`;

describe.concurrent('ED 1 with the cursor in the last column', () => {
  // DECSED (CSI ? 1 J) is xterm's selective erase; tmux does not implement it, so it is checked here only.
  it.each([['ED 1', '\\u001b[1J'], ['DECSED 1', '\\u001b[?1J']])('a cast that does %s in the bottom-right cell plays to its screen (it was an internal error)', async (_name, sequence) => {
    const dir = tempDir();
    const cast = join(dir, 'erase-above.cast');
    writeFileSync(cast, `{"version": 2, "width": 5, "height": 2}\n[0.1, "o", "ab\\r\\ncd\\u001b[99;99H${sequence}"]\n[0.2, "o", "\\u001b[2;1Hhi"]\n`);
    const r = await tapedeck(['snapshot', cast]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').slice(0, 2)).toEqual(['', 'hi']);
  });

  it('a live program that does it on a fresh screen is followed to its next output (it was an uncaught error, the screen stuck)', async () => {
    const t = spawnTerminal('bash', ['-c', 'printf "ab\\r\\ncd\\033[99;99H\\033[1J\\033[2;1Hdone"; sleep 30'], { rows: 2, cols: 5 });
    try {
      await t.waitForText('done', { timeoutMs: 20_000 });
      expect(await t.text()).toBe('\ndone');
    } finally {
      await t.dispose();
    }
  });

  it('leaves the screen tmux of the same size shows', async () => {
    const dir = tempDir();
    const script = join(dir, 'erase_above.py');
    writeFileSync(script, program('\\x1b[1J'));
    const { tapedeck: ours, tmux } = await runParity({ command: ['python3', script], rows: 4, cols: 12, cwd: ROOT, steps: [], final: 'done' });
    expect(ours.lines).toEqual(tmux.lines);
    expect(ours.cursor).toEqual(tmux.cursor);
  });

  it('with scrollback, the line below the cursor is the one whose wrap ends (not a line above)', async () => {
    const s = new Screen({ rows: 3, cols: 4, scrollback: 10 });
    // Lines scroll into the scrollback, then a wrapped pair on screen: row 1 continues row 0.
    await s.write('a\r\nb\r\nc\r\nd\r\n\x1b[2J\x1b[Hwxyzmore');
    const lines = (s.xterm as unknown as { _core: { buffer: { ybase: number; lines: { get(i: number): { isWrapped: boolean } } } } })._core.buffer;
    const wrapsBefore = Array.from({ length: lines.ybase + 3 }, (_, i) => lines.lines.get(i).isWrapped);
    expect(wrapsBefore[lines.ybase + 1]).toBe(true);
    await s.write('\x1b[1;4H\x1b[1J'); // the cursor in the last column of row 0: rows up to it erased
    const wrapsAfter = Array.from({ length: lines.ybase + 3 }, (_, i) => lines.lines.get(i).isWrapped);
    expect(wrapsAfter[lines.ybase + 1]).toBe(false);
    // Nothing above the screen changed.
    expect(wrapsAfter.slice(0, lines.ybase)).toEqual(wrapsBefore.slice(0, lines.ybase));
    expect(s.visibleLines()).toEqual(['', 'more', '']);
    s.dispose();
  });
});
