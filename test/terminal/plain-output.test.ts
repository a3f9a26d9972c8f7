import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PlainOutput } from '../../src/session/screen/plain-output.js';
import { recordTerminal, spawnTerminal, readCast } from '../../src/index.js';
import { useTempDirs } from '../helpers/cli.js';

const temp = useTempDirs();
const b = (s: string) => Buffer.from(s, 'latin1');

describe('PlainOutput holds only bytes that cannot finish a control sequence', () => {
  test('plain text between sequences is held, in order, with the seq of the last chunk', () => {
    const p = new PlainOutput();
    expect(p.offer(b('one\r\n'), 1)).toBe(true);
    expect(p.offer(b('two\r\n\x07\t'), 2)).toBe(true);
    expect(p.take()).toEqual({ data: b('one\r\ntwo\r\n\x07\t'), seq: 2 });
    expect(p.take()).toBeUndefined();
    expect(p.held).toBe(false);
  });

  test('a chunk with ESC or a C1 control is never held', () => {
    const p = new PlainOutput();
    expect(p.offer(b('a\x1b[0mb'), 1)).toBe(false);
    expect(p.offer(b('x\xc2\x9b6n'), 2)).toBe(false); // C1 CSI in UTF-8
    expect(p.offer(b('x\xc2'), 3)).toBe(true); // a lone lead byte so far
    expect(p.offer(b('\x9b6n'), 4)).toBe(false); // ... that turns out to start a C1 control
  });

  test.each([
    ['CSI', ['\x1b[', '6n'], 'after'],
    ['CSI with parameters', ['\x1b[?2', '6$p'], 'after'],
    ['OSC ended by BEL', ['\x1b]11;', '?\x07'], 'after'],
    ['DCS (ends only with ST)', ['\x1bP$q', 'm\x07'], 'still inside'],
    ['ESC with an intermediate', ['\x1b#', '8'], 'after'],
  ])('the rest of a %s split across chunks is parsed at once', (_name, [start, rest], after) => {
    const p = new PlainOutput();
    expect(p.offer(b(start), 1)).toBe(false);
    expect(p.offer(b(rest), 2)).toBe(false);
    // Only once the sequence is over does plain text wait again.
    expect(p.offer(b('text'), 3)).toBe(after === 'after');
  });

  test('ST, CAN and SUB end a string; a sequence after plain text in the same chunk is followed', () => {
    const p = new PlainOutput();
    expect(p.offer(b('\x1bPq#0'), 1)).toBe(false);
    expect(p.offer(b('~~\x1b\\'), 2)).toBe(false);
    expect(p.offer(b('plain'), 3)).toBe(true);
    expect(p.offer(b('\x1b]0;title'), 4)).toBe(false);
    expect(p.offer(b('more\x18'), 5)).toBe(false);
    expect(p.offer(b('plain'), 6)).toBe(true);
    expect(p.offer(b('text \x1b[1mbold\x1b[0m \x1b['), 7)).toBe(false);
    expect(p.offer(b('plain'), 8)).toBe(false);
  });

  test('chunks passed on while something watches the screen still move the parser state', () => {
    const p = new PlainOutput();
    expect(p.offer(b('\x1b['), 1, false)).toBe(false);
    expect(p.offer(b('6n'), 2)).toBe(false);
    expect(p.offer(b('plain'), 3, false)).toBe(false);
    expect(p.held).toBe(false);
    expect(p.offer(b('plain'), 4)).toBe(true);
  });

  test('past its byte limit nothing more is held', () => {
    const p = new PlainOutput(10);
    expect(p.offer(b('12345678'), 1)).toBe(true);
    expect(p.offer(b('abc'), 2)).toBe(false);
  });
});

describe('recording with plain output held', () => {
  const node = process.execPath;

  test('a query after plain output is answered from the screen with all of that output on it', async () => {
    // 40 lines on a 24-row screen leave the cursor on the last row; a screen that
    // had not parsed them would answer row 1.
    const script = `for (let i = 1; i <= 40; i++) process.stdout.write('line ' + i + '\\n');
process.stdin.setRawMode(true);
let got = '';
process.stdin.on('data', (d) => { got += d; const m = /\\x1b\\[(\\d+);(\\d+)R/.exec(got); if (m) { process.stdout.write('REPLY:' + m[1] + ';' + m[2] + '\\n'); process.exit(0); } });
process.stdout.write('\\x1b[6n');`;
    const out = join(temp(), 'cpr.cast');
    const { terminal, done } = await recordTerminal({ out, command: node, args: ['-e', script] });
    const result = await done;
    expect(result.exitCode).toBe(0);
    const { events } = await readCast(out);
    const text = events.filter((e) => e.code === 'o').map((e) => e.data).join('');
    expect(text).toContain('REPLY:24;1');
    expect(terminal.running).toBe(false);
  });

  test('the screen read after the program ended shows the held output', async () => {
    const terminal = spawnTerminal('seq', ['1', '5000'], { lazyScreen: true });
    try {
      await terminal.exited;
      expect((await terminal.text()).split('\n').at(-1)).toBe('5000');
      expect((await terminal.snapshot()).capturedAtSeq).toBe(terminal.events.events.filter((e) => e.type === 'output').at(-1)?.seq);
    } finally {
      await terminal.dispose();
    }
  });

  test('a recording of plain output builds no headless screen; the first read builds it with the output on it', async () => {
    const built = (t: object) => (t as { headlessScreen?: object }).headlessScreen !== undefined;
    const { terminal, done } = await recordTerminal({ out: join(temp(), 'plain.cast'), command: 'seq', args: ['1', '30'] });
    await done;
    expect(built(terminal)).toBe(false);
    expect([terminal.rows, terminal.cols]).toEqual([24, 80]);
    const lazy = spawnTerminal('seq', ['1', '30'], { lazyScreen: true });
    try {
      await lazy.exited;
      expect(built(lazy)).toBe(false);
      expect((await lazy.text()).split('\n').at(-1)).toBe('30');
      expect(built(lazy)).toBe(true);
    } finally {
      await lazy.dispose();
    }
  });

  test('a drive script waits on plain output as without holding', async () => {
    const out = join(temp(), 'drive.cast');
    let seen = '';
    const { done } = await recordTerminal({
      out,
      command: 'sh',
      args: ['-c', 'seq 1 300; read x; echo "got $x"'],
      drive: async (t) => {
        await t.waitForText('300');
        t.type('yes\r');
        seen = (await t.waitForText('got yes')).matchedText ?? '';
      },
    });
    expect((await done).exitCode).toBe(0);
    expect(seen).toBe('got yes');
  });
});
