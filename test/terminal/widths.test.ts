import { describe, expect, it, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { formatScreenGolden, spawnTerminal } from '../../src/index.js';
import { Screen } from '../../src/session/screen/screen.js';
import { codepointWidth } from '../../src/session/screen/unicode-widths.js';
import { RESIGNAL_AFTER_MS, ResizeResignal } from '../../src/session/pty/resize-signal.js';
import { ROOT } from '../helpers/cli.js';

/** Cell widths, the golden text's layout, resizes that reach ncurses, and quiet disposal. */

async function screenOf(text: string, rows = 4, cols = 40): Promise<Screen> {
  const s = new Screen({ rows, cols });
  await s.write(text);
  return s;
}

describe('cell widths', () => {
  it('match glibc wcwidth (C.UTF-8) for every code point it knows', () => {
    // Python asks the machine's glibc, the library the programs themselves measure with.
    const script = [
      'import ctypes, locale, sys',
      "locale.setlocale(locale.LC_ALL, 'C.UTF-8')",
      "w = ctypes.CDLL('libc.so.6').wcwidth",
      "sys.stdout.write(''.join('x' if 0xd800 <= cp < 0xe000 or w(cp) < 0 else str(w(cp)) for cp in range(0x110000)))",
    ].join('\n');
    const glibc = execFileSync('python3', ['-c', script], { encoding: 'utf8', maxBuffer: 4 * 1024 * 1024 });
    expect(glibc.length).toBe(0x110000);
    const differing: string[] = [];
    for (let cp = 0; cp < 0x110000; cp++) {
      const g = glibc[cp];
      if (g !== 'x' && String(codepointWidth(cp)) !== g) differing.push(`U+${cp.toString(16)} glibc ${g} tapedeck ${codepointWidth(cp)}`);
    }
    expect(differing.slice(0, 20)).toEqual([]);
  });

  it('puts emoji in two cells on the headless screen, as xterm and tmux do', async () => {
    const s = await screenOf('😀😀|\x1b[20GX\r\n🥲🫠⭐✨漢|\r\n👍🏽|');
    const snap = s.snapshot({ includeCells: true });
    expect(snap.cells![0].slice(0, 5).map((c) => [c.char, c.width])).toEqual([['😀', 2], ['', 0], ['😀', 2], ['', 0], ['|', 1]]);
    expect(snap.cells![0][19].char).toBe('X');
    // Unicode 12+ emoji and emoji-presentation symbols too; a skin-tone modifier is a wide cell of its own (glibc, tmux 3.3a).
    expect(snap.cells![1][10].char).toBe('|');
    expect(snap.cells![2][4].char).toBe('|');
    expect(snap.cursor).toEqual({ row: 2, col: 5, visible: true });
    s.dispose();
  });
});

describe('screen golden text', () => {
  it('pads by cells: "│" closes every line in the same column, with and without styles', async () => {
    const s = await screenOf('漢字 😀 é\r\n\x1b[31mred\x1b[0m e\u0301 plain\r\n\x1b[1m🚀 bold\x1b[0m', 4, 20);
    const plain = formatScreenGolden(s.snapshot());
    const styled = formatScreenGolden(s.snapshot({ includeCells: true }), { styles: true });
    // Identical text; the style layer only follows it.
    expect(styled.startsWith(plain)).toBe(true);
    expect(styled.slice(plain.length)).toMatch(/^--- styles\n1:0-2 fg=red\n2:0-6 bold\n$/);
    const lines = plain.trimEnd().split('\n').slice(1);
    expect(lines[0]).toBe(`漢字 😀 é${' '.repeat(11)}│`);
    // The column of "│", counted in cells (glibc widths), is the width on every line.
    const cellsBefore = (line: string) => [...line.slice(0, line.lastIndexOf('│'))].reduce((n, ch) => n + codepointWidth(ch.codePointAt(0)!), 0);
    expect(lines.map(cellsBefore)).toEqual([20, 20, 20, 20]);
    s.dispose();
  });

  it('masks a wide character as two cells', async () => {
    const s = await screenOf('id 漢 end', 1, 12);
    expect(formatScreenGolden(s.snapshot(), { mask: [/漢/] }).split('\n')[1]).toBe('id ░░ end   │');
    expect(formatScreenGolden(s.snapshot({ includeCells: true }), { mask: [{ row: 0, col: 3, width: 2 }] }).split('\n')[1]).toBe('id ░ end   │');
    s.dispose();
  });
});

describe('a resize no output follows', () => {
  it('is signalled again at each backoff step, and no more once the program writes', () => {
    vi.useFakeTimers();
    try {
      let sent = 0;
      const resignal = new ResizeResignal(() => sent++);
      resignal.resized();
      vi.advanceTimersByTime(RESIGNAL_AFTER_MS[0] - 1);
      expect(sent).toBe(0);
      vi.advanceTimersByTime(RESIGNAL_AFTER_MS.at(-1)!);
      expect(sent).toBe(RESIGNAL_AFTER_MS.length);
      // A program that answers the next resize is left alone.
      resignal.resized();
      vi.advanceTimersByTime(RESIGNAL_AFTER_MS[0]);
      resignal.output();
      vi.advanceTimersByTime(10_000);
      expect(sent).toBe(RESIGNAL_AFTER_MS.length + 1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('is signalled at every step when the program was writing as it went out, whatever pauses its stream has', () => {
    vi.useFakeTimers();
    try {
      let sent = 0;
      let now = 0;
      const resignal = new ResizeResignal(() => sent++, () => now);
      resignal.output(); // a tick just before the resize
      now = 5;
      resignal.resized();
      // Ticks every 10 ms, with a 200 ms stall (a loaded machine) in the middle.
      for (let t = 10; t <= 1_200; t += t === 150 ? 200 : 10) {
        vi.advanceTimersByTime(t - now);
        now = t;
        resignal.output();
      }
      expect(sent).toBe(RESIGNAL_AFTER_MS.length);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('live terminals', () => {
  it('a python curses program sees resize(30, 100) (no LINES/COLUMNS pinned)', async () => {
    const t = spawnTerminal('python3', ['-I', join(ROOT, 'test/fixtures/parity/curses_size.py')], { rows: 24, cols: 80 });
    try {
      // Resized as soon as the first screen is whole: a SIGWINCH ncurses missed is sent again.
      await t.waitForText('size 24x80');
      await t.waitForText('🚀 bottom line|');
      t.resize(30, 100);
      await t.waitForText('size 30x100 😀 漢字|');
      // The bottom line is drawn after the size line: wait for it on the last row of the new size.
      await t.waitForRegex(/\n🚀 bottom line\|$/);
      expect((await t.snapshot()).visibleLines[29]).toBe('🚀 bottom line|');
    } finally {
      await t.dispose();
    }
  });

  it('a resize the foreground job missed is signalled again, to that job and not only the shell', async () => {
    // bash runs the program as its own foreground process group, as a user's shell does.
    const t = spawnTerminal('bash', ['--norc', '--noprofile', '-i'], { rows: 24, cols: 80, env: { PS1: '$ ', HISTFILE: '/dev/null' } });
    try {
      await t.waitForText('$ ');
      t.type(`python3 -I ${join(ROOT, 'test/fixtures/parity/missed_winch.py')}\r`);
      await t.waitForText(/^ready$/m);
      t.resize(30, 100);
      await t.waitForText('size 30x100 after 2 signals');
    } finally {
      await t.dispose();
    }
  });

  it('ctrl+- / ctrl+1 / ctrl+. reach the program as the plain characters', async () => {
    const t = spawnTerminal('sh', ['-c', 'stty raw -echo; echo ready; head -c 3 | od -An -c']);
    try {
      await t.waitForText('ready');
      t.press('ctrl+-', 'ctrl+1', 'ctrl+.');
      await t.waitForExit();
      expect((await t.text()).split('\n').at(-1)!.trim()).toBe('-   1   .');
    } finally {
      await t.dispose();
    }
  });

  it('disposing right after a query was answered prints no EBADF', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      for (let i = 0; i < 10; i++) {
        // Device attributes and cursor position queries: the headless screen answers both.
        const t = spawnTerminal('sh', ['-c', 'printf "go\\033[6n\\033[c"; sleep 5']);
        await t.waitForText('go');
        await t.dispose();
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect(errors.mock.calls.map((c) => String(c[0]))).toEqual([]);
    } finally {
      errors.mockRestore();
    }
  });
});
