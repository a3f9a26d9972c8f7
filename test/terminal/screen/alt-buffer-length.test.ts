import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tapedeck, useFileTempDirs } from '../../helpers/cli.js';
import { runParity } from '../../helpers/parity.js';

/**
 * Rows shrink while the normal screen is active, then a program enters the
 * alternate screen and scrolls: xterm.js 6 kept room for the old rows in the
 * (empty) alternate buffer, so it gained a scrollback, and a later resize could
 * throw. The alternate screen now has its rows and no more, as in tmux.
 */
const dir = useFileTempDirs();

describe.concurrent('the alternate screen after the rows shrank', () => {
  it('a cast that shrinks, scrolls the alternate screen and grows again plays to its screen (it was an internal error)', async () => {
    const cast = join(dir(), 'alt-resize.cast');
    const events = [['r', '13x2'], ['o', '\u001b[?1049h\n\u001bE\u001b[?6l'], ['r', '3x4'], ['o', 'éacd999999'], ['r', '18x5'], ['o', '<']];
    writeFileSync(cast, `{"version": 2, "width": 3, "height": 4}\n${events.map(([code, data], i) => JSON.stringify([0.1 * (i + 1), code, data])).join('\n')}\n`);
    const r = await tapedeck(['snapshot', cast]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').slice(0, 4)).toEqual(['éac', 'd99', '999', '9<']);
  });

  it('a program that scrolls the alternate screen after a shrink shows what tmux shows after it grows again', async () => {
    const script = join(dir(), 'alt_after_shrink.py');
    writeFileSync(
      script,
      [
        'import sys, time',
        'print("ready", flush=True)',
        'sys.stdin.readline()',
        'sys.stdout.write("\\x1b[?1049h\\x1b[H" + "".join(f"alt line {i}\\r\\n" for i in range(8)) + "scrolled")',
        'sys.stdout.flush()',
        'sys.stdin.readline()',
        'sys.stdout.write("\\r\\ndone")',
        'sys.stdout.flush()',
        'time.sleep(30)',
      ].join('\n'),
    );
    const { tapedeck: ours, tmux } = await runParity({
      command: ['python3', script],
      rows: 10,
      cols: 30,
      cwd: ROOT,
      steps: [{ waitFor: 'ready' }, { resize: { rows: 4, cols: 30 } }, { type: '\r' }, { waitFor: 'scrolled' }, { resize: { rows: 10, cols: 30 } }, { type: '\r' }],
      final: 'done',
    });
    expect(ours.lines).toEqual(tmux.lines);
    expect(ours.cursor).toEqual(tmux.cursor);
  });
});
