import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../helpers/cli.js';
import { runParity } from '../../helpers/parity.js';
import { spawnTerminal } from '../../../src/index.js';
import { Screen } from '../../../src/session/screen/screen.js';

/**
 * What xterm does that xterm.js headless did not: answer XTVERSION, CSI 18 t
 * and the OSC 10/11 colour queries (a program waiting for them waited for
 * its own timeout), and give a zero-width code point with nothing before it
 * on the line no cell (xterm and tmux leave the cursor where it was).
 */
const ASK = join(ROOT, 'test/fixtures/terminal/ask_terminal.py');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe.concurrent('terminal queries a program waits for', () => {
  it('XTVERSION, the size in characters and the default colours are answered in xterm form', async () => {
    const t = spawnTerminal('python3', [ASK, 'xtversion', 'size', 'fg', 'bg'], { rows: 20, cols: 70 });
    try {
      await t.waitForText('done', { timeoutMs: 20_000 });
      const text = await t.text();
      expect(text).not.toContain('no answer');
      expect(text).toContain(`answer xtversion: \\x1bP>|tapedeck(${VERSION})\\x1b\\\\`);
      expect(text).toContain('answer size: \\x1b[8;20;70t');
      expect(text).toContain('answer fg: \\x1b]10;rgb:e5e5/e5e5/e5e5\\x1b\\\\');
      expect(text).toContain('answer bg: \\x1b]11;rgb:0000/0000/0000\\x1b\\\\');
    } finally {
      await t.dispose();
    }
  });

  it('follows a resize in CSI 18 t, and a colour the program set (OSC 10/11) is the one reported until reset (OSC 110/111)', async () => {
    const t = spawnTerminal('python3', ['-c', 'import sys,time; sys.stdin.readline(); import subprocess; subprocess.run([sys.executable, sys.argv[1], "size"])', ASK], { rows: 5, cols: 30 });
    try {
      t.resize(9, 44);
      t.type('\r');
      await t.waitForText('done', { timeoutMs: 20_000 });
      expect(await t.text()).toContain('answer size: \\x1b[8;9;44t');
    } finally {
      await t.dispose();
    }
    const screen = new Screen({ rows: 3, cols: 10 });
    const replies: string[] = [];
    screen.xterm.onData((d) => replies.push(d));
    await screen.write('\x1b]10;#ff0000\x07\x1b]10;?;?\x07\x1b]11;rgb:1/80/fff\x07\x1b]11;?\x07\x1b]110\x07\x1b]10;?\x07');
    expect(replies).toEqual([
      '\x1b]10;rgb:ffff/0000/0000\x1b\\', // what the program set, as xterm reports it
      '\x1b]11;rgb:0000/0000/0000\x1b\\',
      '\x1b]11;rgb:1111/8080/ffff\x1b\\',
      '\x1b]10;rgb:e5e5/e5e5/e5e5\x1b\\', // OSC 110 reset it
    ]);
    screen.dispose();
  });
});

describe.concurrent('zero-width code points with nothing to join', () => {
  it('U+200B and U+0301 at column 0 take no cell, as in tmux; after a character they join it', async () => {
    const { tapedeck, tmux } = await runParity({
      command: ['sh', '-c', "printf '\\342\\200\\213A|\\n\\314\\201B|\\ne\\314\\201C|\\n'; printf 'end'; sleep 60"],
      rows: 5,
      cols: 20,
      cwd: ROOT,
      steps: [],
      final: 'end',
    });
    expect(tmux.lines.slice(0, 3)).toEqual(['A|', 'B|', 'e\u0301C|']);
    expect(tapedeck.cells).toEqual(tmux.cells);
    expect(tapedeck.text!.slice(0, 3)).toEqual(['A|', 'B|', 'e\u0301C|']);
    expect(tapedeck.cursor).toEqual(tmux.cursor);
  });

  it('a zero-width code point alone leaves the cursor at column 0', async () => {
    const screen = new Screen({ rows: 2, cols: 10 });
    await screen.write('\u200b');
    expect(screen.cursor.col).toBe(0);
    await screen.write('\u0301\u0301X');
    expect(screen.cursor.col).toBe(1);
    expect(screen.visibleLines()[0]).toBe('X');
    screen.dispose();
  });
});
