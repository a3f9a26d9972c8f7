import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { useVhsProjects } from '../helpers/vhs.js';

/**
 * `tapedeck vhs` against real programs (bash, a python3 curses menu, vim,
 * less), checked against .ascii outputs written the way VHS writes them:
 * each frame is the terminal's first `rows` lines, trimmed at the end, then a
 * line of 80 "─"; a frame after every command once a text Output is declared.
 */
const SEP = '─'.repeat(80);
const { project, vhs } = useVhsProjects('run');
/** A VHS frame: `rows` lines (the ones given, then empty ones), then the separator. */
const frame = (rows: number, ...lines: string[]) => [...lines, ...Array(rows - lines.length).fill('')].map((l) => `${l}\n`).join('') + `${SEP}\n`;

// Width 800, Height 400, FontSize 22, Padding 60: (800-120-10)/14 = 47 columns, (400-120-10)/30 = 9 rows.
const BASH = 'Output demo.ascii\nSet Width 800\nSet Height 400\nType "echo hello"\nEnter\nSleep 1s\n';
const BASH_ASCII = [frame(9, '>'), frame(9, '>'), frame(9, '>'), frame(9, '> echo hello'), frame(9, '> echo hello', 'hello', '>'), frame(9, '> echo hello', 'hello', '>')].join('');

describe('tapedeck vhs', () => {
  test('an existing VHS .ascii of a bash tape comes out the same, frame for frame (CI: nothing written)', async () => {
    const dir = project({ 'demo.tape': BASH, 'demo.ascii': BASH_ASCII });
    const r = await vhs(dir, ['demo.tape'], { CI: 'true' });
    expect(r.stderr).toContain('matches demo.ascii');
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, 'demo.ascii.new'))).toBe(false);
  });

  test('a VHS file whose header frames have the rows of VHS\'s first browser size (52) still matches; other frames keep their row count', async () => {
    // VHS takes the header frames (here Output, Set, Set) before it sizes the terminal: at go-rod's 1280 x 800 window.
    const vhsFile = BASH_ASCII.replace(`${frame(9, '>')}${frame(9, '>')}${frame(9, '>')}`, `${frame(52, '>')}${frame(52, '>')}${frame(52, '>')}`);
    const dir = project({ 'demo.tape': BASH, 'demo.ascii': vhsFile });
    const r = await vhs(dir, ['demo.tape'], { CI: 'true' });
    expect(r.stderr).toContain('matches demo.ascii');
    expect(r.code).toBe(0);
    const later = project({ 'demo.tape': BASH, 'demo.ascii': BASH_ASCII.replace(frame(9, '> echo hello'), frame(52, '> echo hello')) });
    const drift = await vhs(later, ['demo.tape'], { CI: 'true' });
    expect(drift.stderr).toMatch(/frame 4 \(after line 4: Type "echo hello"\) differs/);
    expect(drift.code).toBe(1);
  });

  test('without outputs it writes them; a changed output is drift (exit 1, .new, TD1201 envelope); -u rewrites; CI fails on a missing one', async () => {
    const dir = project({ 'demo.tape': BASH.replace('Output demo.ascii', 'Output demo.ascii\nOutput demo.cast') });
    const first = await vhs(dir, ['demo.tape']);
    expect(first.code).toBe(0);
    expect(readFileSync(join(dir, 'demo.ascii'), 'utf8')).toBe(BASH_ASCII.replace(frame(9, '>'), frame(9, '>') + frame(9, '>')));
    expect(readFileSync(join(dir, 'demo.cast'), 'utf8').split('\n')[0]).toContain('"width":47,"height":9');
    writeFileSync(join(dir, 'demo.tape'), BASH.replace('echo hello', 'echo bye').replace('Output demo.ascii', 'Output demo.ascii\nOutput demo.cast'));
    const drift = await vhs(dir, ['demo.tape', '--json']);
    expect(drift.code).toBe(1);
    const envelopes = drift.stdout.trim().split('\n').map((l) => JSON.parse(l) as { code: string; span: { line: number } });
    expect(envelopes.map((e) => e.code)).toEqual(['TD1201', 'TD1202']);
    expect(drift.stderr).toMatch(/frame 5 \(after line 5: Type "echo bye"\) differs/);
    expect(readFileSync(join(dir, 'demo.ascii.new'), 'utf8')).toContain('> echo bye');
    const update = await vhs(dir, ['demo.tape', '-u']);
    expect(update.code).toBe(0);
    expect(readFileSync(join(dir, 'demo.ascii'), 'utf8')).toContain('> echo bye');
    const ci = project({ 'demo.tape': BASH });
    const missing = await vhs(ci, ['demo.tape', '--json'], { CI: 'true' });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('"TD1203"');
    expect(existsSync(join(ci, 'demo.ascii'))).toBe(false);
  });

  test('20 s of Sleep against an idle shell finishes in under 3 s, and repeated runs give identical outputs', async () => {
    const tape = `Output idle.txt\nType "echo tick"\n${'Sleep 2s\nEnter\n'.repeat(10)}`;
    const outs: string[] = [];
    // Run 0 loads the terminal stack (xterm, node-pty) into this process: only the runs after it are timed.
    const runs = process.env.TAPEDECK_SOAK === '1' ? 21 : 4;
    for (let i = 0; i < runs; i++) {
      const dir = project({ 'idle.tape': tape });
      const t0 = performance.now();
      const r = await vhs(dir, ['idle.tape']);
      expect(r.code).toBe(0);
      if (i > 0) expect(performance.now() - t0).toBeLessThan(3000);
      outs.push(readFileSync(join(dir, 'idle.txt'), 'utf8'));
    }
    expect(outs[0].split(SEP).length - 1).toBe(22);
    expect(outs[0].split('\ntick\n').length - 1).toBeGreaterThan(0);
    expect(new Set(outs).size).toBe(1);
  });

  test('with both cores busy (TAPEDECK_SOAK=1: 20 runs), the outputs are the same as idle', async () => {
    const soak = process.env.TAPEDECK_SOAK === '1';
    const tape = 'Output busy.txt\nType "printf \'a\\nb\\n\'"\nEnter\nSleep 1s\nType "seq 3"\nEnter\nSleep 1s\n';
    const idle = project({ 'busy.tape': tape });
    expect((await vhs(idle, ['busy.tape'])).code).toBe(0);
    const want = readFileSync(join(idle, 'busy.txt'), 'utf8');
    const { spawn } = await import('node:child_process');
    const burners = [0, 1].map(() => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
    try {
      for (let i = 0; i < (soak ? 20 : 2); i++) {
        const dir = project({ 'busy.tape': tape, 'busy.txt': want });
        const r = await vhs(dir, ['busy.tape'], { CI: 'true' });
        expect(r.stderr).toContain('matches busy.txt');
      }
    } finally {
      for (const b of burners) b.kill('SIGKILL');
    }
  });

  test('Screenshot is a PNG golden (drift TD1204 with the pictures); JUnit shows drift and a tape that could not run as failures; --report shows the frames side by side', async () => {
    const tape = (word: string) => `Output g.txt\nSet Width 600\nSet Height 300\nType "echo ${word}"\nEnter\nScreenshot s.png\nSleep 100ms\n`;
    const dir = project({ 'g.tape': tape('x'), 'bad.tape': 'Output b.txt\nSleep 1x\n' });
    const r = await vhs(dir, ['g.tape']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('g.tape:6: wrote new golden s.png');
    expect(readFileSync(join(dir, 's.png')).subarray(1, 4).toString()).toBe('PNG');
    expect((await vhs(dir, ['g.tape'], { CI: 'true' })).stderr).toContain('matches s.png');
    writeFileSync(join(dir, 'g.tape'), tape('y'));
    const drift = await vhs(dir, ['g.tape', 'bad.tape', '--json', '--reporter', 'junit', '--out', 'junit.xml', '--report', 'report.html']);
    expect(drift.code).toBe(2);
    const codes = drift.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { code: string }).code);
    expect(codes).toEqual(['TD1201', 'TD1204']);
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toContain('tests="2" failures="2"');
    expect(junit).toMatch(/<testcase classname="tapedeck.terminal" name="g\.tape"[^>]*>\s*<failure message="2 drift\(s\)[^"]*" type="TD1201">/);
    expect(junit).toMatch(/<testcase classname="tapedeck.terminal" name="bad\.tape"[^>]*>\s*<failure message="1 error in the tape; nothing was run" type="INVALID_INPUT">bad\.tape:2:8: error: expected a command/);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('<pre class="expected"><span class="del">&gt; echo x</span>');
    expect(html).toContain('<pre class="actual"><span class="add">&gt; echo y</span>');
    expect(html).toContain('<h3>screenshot: s.png</h3>');
    expect(html).toMatch(/data-shot="expected" src="data:image\/png;base64,[^"]+"[\s\S]*data-shot="actual"[\s\S]*data-shot="diff"/);
    expect(html).toMatch(/<a class="drift" href="#tape-1">failed<\/a>/);
  });

  test('a python3 curses menu, vim and less, driven by keys and Wait', async () => {
    const menu = [
      'import curses',
      'def main(s):',
      '    items = ["one", "two", "three"]; i = 0',
      '    while True:',
      '        s.erase(); s.addstr(0, 0, "Pick one:")',
      '        for k, it in enumerate(items): s.addstr(k + 1, 2, ("> " if k == i else "  ") + it)',
      '        s.refresh(); c = s.getch()',
      '        if c == curses.KEY_DOWN: i = min(i + 1, 2)',
      '        elif c == curses.KEY_UP: i = max(i - 1, 0)',
      '        elif c in (10, 13): return items[i]',
      'print("chose:", curses.wrapper(main))',
    ].join('\n');
    const tape = [
      'Output run.txt', 'Set Width 800', 'Set Height 400', 'Require python3', 'Require vim', 'Require less',
      'Hide', 'Type "clear"', 'Enter', 'Show',
      'Type "python3 menu.py"', 'Enter', 'Wait+Screen /Pick one/', 'Down 2', 'Up', 'Enter', 'Wait+Screen /chose: two/',
      'Type "vim -u NONE -n note.txt"', 'Enter', 'Wait+Screen /~/', 'Type "ihello from vhs"', 'Escape', 'Type ":wq"', 'Enter', 'Wait',
      'Type "seq 100 | less"', 'Enter', 'Wait+Screen /(?m)^3$/', 'Space', 'Wait+Screen /(?m)^12$/', 'Type "q"', 'Wait',
    ].join('\n');
    const dir = project({ 'menu.py': menu, 'run.tape': tape });
    const r = await vhs(dir, ['run.tape']);
    expect(r.stderr).toContain('wrote new golden run.txt');
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'note.txt'), 'utf8')).toBe('hello from vhs\n');
    const frames = readFileSync(join(dir, 'run.txt'), 'utf8').split(`${SEP}\n`);
    expect(frames.some((f) => f.includes('  > three'))).toBe(true);
    expect(frames.some((f) => f.includes('chose: two'))).toBe(true);
    expect(frames.some((f) => f.includes('hello from vhs'))).toBe(true);
    expect(frames.some((f) => /^10$/m.test(f))).toBe(true);
  });

  test('errors name the tape line and write nothing: Require, Wait timeout, unwritable Output, missing shell, parse errors', async () => {
    const cases: [string, RegExp][] = [
      ['Output a.txt\nRequire no-such-program-x\nType "x"\n', /a\.tape:2: Require no-such-program-x: "no-such-program-x" is not on PATH/],
      ['Output a.txt\nType "echo hi"\nEnter\nWait@300ms /never/\n', /a\.tape:4: Wait\+Line \/never\/ timed out after 300 ms; the current line was:\n\s+>/],
      ['Output "/proc/no/such/a.txt"\nType "x"\n', /a\.tape:1: cannot write \/proc\/no\/such\/a\.txt/],
      ['Output a.txt\nSet Shell "xonsh"\nType "x"\n', /a\.tape:2: shell "xonsh" \(xonsh\) is not on PATH/],
      ['Output a.txt\nSet Shell "tcsh"\nSleep 1x\n', /a\.tape:2:11: error: Set Shell expects a shell VHS knows[\s\S]*a\.tape:3:8: error: expected a command[\s\S]*2 errors; nothing was run/],
    ];
    for (const [tape, message] of cases) {
      const dir = project({ 'a.tape': tape });
      const r = await vhs(dir, ['a.tape']);
      expect(r.stderr).toMatch(message);
      expect(r.code).toBe(2);
      expect(existsSync(join(dir, 'a.txt'))).toBe(false);
    }
  });
});
