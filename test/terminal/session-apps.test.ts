import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnTerminal, type Terminal } from '../../src/session/index.js';

/** Real full-screen programs driven through the PTY: alternate screen, DECCKM, F-keys. */
const open: Terminal[] = [];
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tapedeck-apps-'));
  writeFileSync(join(dir, 'three.txt'), 'alpha\nbravo\ncharlie\n');
  writeFileSync(join(dir, 'hundred.txt'), Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  return () => rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.dispose()));
});

function spawn(command: string, args: string[], rows = 12, cols = 60): Terminal {
  const t = spawnTerminal(command, args, { rows, cols, cwd: dir, env: { HOME: dir } });
  open.push(t);
  return t;
}

describe('vim -u NONE', () => {
  it('uses the alternate screen, enables application cursor keys, and moves with arrows', async () => {
    const t = spawn('vim', ['-u', 'NONE', '-N', '-i', 'NONE', 'three.txt']);
    await t.waitForText('alpha');
    await t.waitForStable(100);
    const snap = await t.snapshot();
    expect(snap.isAltScreen).toBe(true);
    expect(snap.visibleLines.slice(0, 3)).toEqual(['alpha', 'bravo', 'charlie']);
    // vim switches the keypad to "transmit" mode (smkx), i.e. DECCKM: arrows must be sent as ESC O A.
    expect(t.screen.modes.applicationCursorKeys).toBe(true);
    expect(snap.cursor).toMatchObject({ row: 0, col: 0 });
    const down = t.press('Down', 'Down', 'Right', 'Right');
    const sent = t.events.events.find((e) => e.seq === down.seq);
    expect(sent?.type === 'input' && sent.data.toString()).toBe('\x1bOB\x1bOB\x1bOC\x1bOC');
    await t.waitForCursor(2, 2);
    // Edit through the moved cursor to prove the keys landed where the screen says.
    t.press('x');
    await t.waitForText('chrlie');
    t.press('Escape');
    t.type(':q!');
    t.press('Enter');
    expect(await t.waitForExit()).toEqual({ exitCode: 0, signal: null });
    expect(t.screen.isAltScreen).toBe(false);
  });
});

describe('less', () => {
  it('pages with PageDown/Space and quits with q', async () => {
    const t = spawn('less', ['hundred.txt'], 10, 40);
    await t.waitForText('line 9');
    expect(t.screen.isAltScreen).toBe(true);
    expect((await t.snapshot()).visibleLines[0]).toBe('line 1');
    t.press('PageDown');
    await t.waitForText('line 18');
    expect((await t.snapshot()).visibleLines[0]).toBe('line 10');
    t.press('G');
    await t.waitForText('(END)');
    t.press('q');
    expect((await t.waitForExit()).exitCode).toBe(0);
  });
});

describe('htop', () => {
  it('draws its function-key bar and quits on F10', async () => {
    const t = spawn('htop', [], 24, 100);
    await t.waitForRegex(/F10\s*Quit/);
    expect(t.screen.isAltScreen).toBe(true);
    const snap = await t.snapshot({ includeCells: true });
    // The key bar: "F1" in default colours, then the "Help" label black on cyan.
    const barRow = snap.visibleLines.findIndex((l) => /F10\s*Quit/.test(l));
    expect(snap.cells![barRow][0]).toMatchObject({ char: 'F', bg: { kind: 'default' } });
    expect(snap.cells![barRow][2]).toMatchObject({
      char: 'H',
      fg: { kind: 'palette', index: 0, slot: 'black', rgb: '#000000' },
      bg: { kind: 'palette', index: 6, slot: 'cyan', rgb: '#11a8cd' },
    });
    t.press('F10');
    expect((await t.waitForExit()).exitCode).toBe(0);
  });
});

describe('python3 REPL', () => {
  it('evaluates typed input, edits with arrows, exits on ctrl+d', async () => {
    const t = spawn('python3', ['-q'], 10, 60);
    await t.waitForText('>>> ');
    t.type('print(6 * 7)');
    t.press('Enter');
    await t.waitForText('42\n>>>');
    // Readline history: Up recalls the line; edit its end and run it again.
    t.press('Up');
    await t.waitForRegex(/>>> print\(6 \* 7\)$/m);
    t.press('Left', 'Backspace');
    t.type('8');
    t.press('Enter');
    await t.waitForText('48\n>>>');
    t.press('ctrl+d');
    expect((await t.waitForExit()).exitCode).toBe(0);
  });
});
