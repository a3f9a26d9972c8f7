import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../helpers/cli.js';
import { spawnTerminal, type Terminal } from '../../../src/index.js';

/**
 * Mouse input against real programs. The expected bytes are written out by
 * hand from XTerm Control Sequences ("Mouse Tracking"), not computed by the
 * encoder under test: CSI M Cb Cx Cy with Cb = 32 + button (0 left, 1 middle,
 * 2 right, 3 release) + 4 shift + 8 meta + 16 control (+32 motion, 64/65 wheel),
 * Cx/Cy = 32 + 1-based column/row; SGR 1006 `CSI < Cb ; Cx ; Cy M|m`; UTF-8 1005
 * positions from 95 on as two-byte UTF-8; urxvt 1015 `CSI Cb+32 ; Cx ; Cy M`.
 */
const BYTES = join(ROOT, 'test/fixtures/terminal/mouse_bytes.py');
const CURSES = join(ROOT, 'test/fixtures/terminal/curses_mouse.py');
const terminals: Terminal[] = [];
afterAll(async () => {
  await Promise.all(terminals.map((t) => t.dispose()));
});

async function bytesProgram(modes: string[], size = { rows: 40, cols: 240 }): Promise<Terminal> {
  const t = spawnTerminal('python3', [BYTES, ...modes], size);
  terminals.push(t);
  await t.waitForText(`ready ${modes.join(' ') || 'none'}`, { timeoutMs: 30_000 }); // python3 starts slowly on a loaded machine
  return t;
}

/** Everything the program received so far, as hex. */
async function received(t: Terminal): Promise<string> {
  const snap = await t.snapshot({ includeScrollback: true });
  return [...(snap.scrollbackLines ?? []), ...snap.visibleLines].filter((l) => l.startsWith('got ')).map((l) => l.slice(4).trim()).join('');
}

/** Waits until the program has received `hex` after what it had before; fails naming what it got instead. */
async function expectReceived(t: Terminal, before: string, hex: string): Promise<void> {
  const want = before + hex;
  const deadline = Date.now() + 20_000;
  while ((await received(t)).length < want.length && Date.now() < deadline) await t.waitForStable(20, { timeoutMs: 20_000 });
  expect(await received(t)).toBe(want);
}

/** Sends a marker byte and checks the program got nothing but it: the action before sent nothing. */
async function expectNothing(t: Terminal, before: string): Promise<void> {
  t.type('z');
  await expectReceived(t, before, '7a');
}

describe.concurrent('mouse bytes match xterm for each mode', () => {
  it('no reporting enabled: nothing is sent', async () => {
    const t = await bytesProgram([]);
    expect(t.click(2, 4)).toMatchObject({ sent: false, bytesWritten: 0, tracking: 'none' });
    expect(t.scroll(2, 4, 'down').sent).toBe(false);
    expect(t.drag({ row: 0, col: 0 }, { row: 1, col: 1 }).sent).toBe(false);
    await expectNothing(t, '');
  });

  it('X10 (9): presses of the three buttons only, no modifiers, no release, no wheel', async () => {
    const t = await bytesProgram(['9']);
    expect(t.click(2, 4)).toMatchObject({ sent: true, events: 1, tracking: 'x10', encoding: 'default' });
    await expectReceived(t, '', '1b5b4d202523');
    expect(t.click(0, 0, { button: 'right', modifiers: ['ctrl'] }).sent).toBe(false);
    expect(t.scroll(0, 0, 'up').sent).toBe(false);
    await expectNothing(t, '1b5b4d202523');
  });

  it('normal (1000): press and release, modifiers, wheel; a drag has no motion', async () => {
    const t = await bytesProgram(['1000']);
    t.click(0, 0, { button: 'middle' });
    let seen = '1b5b4d212121' + '1b5b4d232121';
    await expectReceived(t, '', seen);
    t.click(1, 1, { modifiers: ['shift'] });
    await expectReceived(t, seen, '1b5b4d242222' + '1b5b4d272222');
    seen += '1b5b4d242222' + '1b5b4d272222';
    t.scroll(0, 0, 'up');
    t.scroll(0, 0, 'down', { count: 2 });
    await expectReceived(t, seen, '1b5b4d602121' + '1b5b4d612121'.repeat(2));
    seen += '1b5b4d602121' + '1b5b4d612121'.repeat(2);
    t.drag({ row: 0, col: 0 }, { row: 0, col: 3 });
    await expectReceived(t, seen, '1b5b4d202121' + '1b5b4d232421');
    seen += '1b5b4d202121' + '1b5b4d232421';
    expect(t.mouseMove(4, 4).sent).toBe(false);
    await expectNothing(t, seen);
  });

  it('button-event (1002) reports motion with a button held; any-event (1003) without', async () => {
    const drag = await bytesProgram(['1002']);
    expect(drag.drag({ row: 0, col: 0 }, { row: 0, col: 3 }, { steps: 3 })).toMatchObject({ events: 5, tracking: 'button' });
    // press, motion to col 1, 2, 3 (32 + 32 + 0 = '@'), release at col 3
    await expectReceived(drag, '', '1b5b4d202121' + '1b5b4d402221' + '1b5b4d402321' + '1b5b4d402421' + '1b5b4d232421');
    expect(drag.mouseMove(5, 6).sent).toBe(false);
    const any = await bytesProgram(['1003']);
    expect(any.mouseMove(5, 6)).toMatchObject({ sent: true, tracking: 'any' });
    await expectReceived(any, '', '1b5b4d432726');
  });

  it('SGR (1006): decimal positions, release with m and the button kept, wheel presses only', async () => {
    const t = await bytesProgram(['1000', '1006']);
    t.click(9, 19, { button: 'right' });
    const first = Buffer.from('\x1b[<2;20;10M\x1b[<2;20;10m').toString('hex');
    await expectReceived(t, '', first);
    t.click(0, 0, { modifiers: ['ctrl', 'alt'] });
    t.scroll(0, 0, 'down');
    await expectReceived(t, first, Buffer.from('\x1b[<24;1;1M\x1b[<24;1;1m\x1b[<65;1;1M').toString('hex'));
    const wide = await bytesProgram(['1002', '1006']);
    wide.click(30, 230); // no 223 limit
    await expectReceived(wide, '', Buffer.from('\x1b[<0;231;31M\x1b[<0;231;31m').toString('hex'));
  });

  it('UTF-8 (1005): positions from 95 on as two bytes; the default encoding stops at 223 with a 0 byte', async () => {
    const utf8 = await bytesProgram(['1000', '1005']);
    expect(utf8.click(0, 99).encoding).toBe('utf8');
    // column 100 → 99 + 33 = 132 → C2 84 (0xC0 + (132 >> 6), 0x80 + (132 & 0x3F))
    await expectReceived(utf8, '', '1b5b4d20c28421' + '1b5b4d23c28421');
    const plain = await bytesProgram(['1000']);
    plain.click(0, 222);
    plain.click(0, 230);
    await expectReceived(plain, '', '1b5b4d20ff21' + '1b5b4d23ff21' + '1b5b4d200021' + '1b5b4d230021');
  });

  it('urxvt (1015) and the last encoding set wins; turning reporting off stops events', async () => {
    const t = await bytesProgram(['1000', '1006', '1015']);
    t.click(0, 0);
    await expectReceived(t, '', Buffer.from('\x1b[32;1;1M\x1b[35;1;1M').toString('hex'));
    t.type('d');
    await t.waitForText('disabled');
    expect(t.click(0, 0)).toMatchObject({ sent: false, tracking: 'none' });
  });

  it('rejects a cell off the screen and unknown buttons, naming them', async () => {
    const t = await bytesProgram(['1000'], { rows: 5, cols: 20 });
    expect(() => t.click(5, 0)).toThrow(/mouse row must be a whole number from 0 to 4/);
    expect(() => t.click(0, -1)).toThrow(/mouse col/);
    expect(() => t.click(0, 0, { button: 'fourth' as never })).toThrow(/mouse button must be one of left, middle, right/);
    expect(() => t.scroll(0, 0, 'sideways' as never)).toThrow(/scroll direction/);
  });
});

describe.concurrent('mouse input drives real programs', () => {
  it('python curses decodes each click, modifier and wheel notch where it was sent', async () => {
    const t = spawnTerminal('python3', [CURSES], { rows: 24, cols: 80 });
    terminals.push(t);
    await t.waitForText('curses mouse ready', { timeoutMs: 30_000 });
    expect(t.screen.mouseModes.tracking).not.toBe('none');
    t.click(5, 10);
    await t.waitForText('mouse row=5 col=10 BUTTON1');
    t.click(7, 3, { button: 'right', modifiers: ['ctrl'] });
    await t.waitForRegex(/mouse row=7 col=3 BUTTON3_\w+ BUTTON_CTRL/);
    t.scroll(2, 2, 'up');
    await t.waitForText('mouse row=2 col=2 BUTTON4_PRESSED');
  });

  it('vim with mouse=a: a click moves the cursor to the cell, the wheel scrolls', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapedeck-mouse-vim-'));
    try {
      writeFileSync(join(dir, 'f.txt'), Array.from({ length: 100 }, (_, i) => `line ${i + 1} of the file`).join('\n'));
      const t = spawnTerminal('vim', ['-u', 'NONE', '-i', 'NONE', '-N', '-c', 'set mouse=a', 'f.txt'], { rows: 20, cols: 60, cwd: dir, env: { HOME: dir } });
      terminals.push(t);
      await t.waitForText('line 1 of the file', { timeoutMs: 30_000 });
      await t.waitForStable(100);
      expect(t.screen.mouseModes.tracking).not.toBe('none');
      t.click(6, 8);
      await t.waitForCursor(6, 8);
      t.scroll(3, 3, 'down', { count: 2 });
      await t.waitForRegex(/^line 7 of the file/); // vim scrolls three lines a notch
      t.type(':echo line(".")\r');
      await t.waitForRegex(/^7\s*$/m); // the cursor's line went to the top row and stays in view
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('mc: a click on a file selects it (F3 views that file); a click on the menu bar opens the menu', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tapedeck-mouse-mc-'));
    try {
      for (const name of ['alpha', 'beta', 'gamma']) writeFileSync(join(home, `${name}.txt`), `${name.toUpperCase()}-CONTENT\n`);
      const t = spawnTerminal('mc', ['-u', home, home], { rows: 24, cols: 80, cwd: home, env: { HOME: home } });
      terminals.push(t);
      await t.waitForText('gamma.txt', { timeoutMs: 30_000 });
      await t.waitForStable(200, { timeoutMs: 30_000 });
      expect(t.screen.mouseModes).toMatchObject({ tracking: 'button', encoding: 'sgr' });
      const row = (await t.snapshot()).visibleLines.findIndex((l) => l.includes('beta.txt'));
      expect(t.click(row, 3).sent).toBe(true);
      await t.waitForStable(200);
      t.press('F3'); // view the file under the bar: the one clicked
      await t.waitForText('BETA-CONTENT');
      t.type('q');
      await t.waitForText('gamma.txt');
      t.click(0, 12); // "File" on the menu bar
      await t.waitForText('Filtered view');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
