import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tapedeck, useFileTempDirs } from '../../helpers/cli.js';
import { state } from '../../helpers/screen-state.js';
import { Screen } from '../../../src/session/screen/screen.js';

/**
 * Counts xterm.js repeats unit by unit (SU, SD, IL, DL, CHT, CBT): 2^31-1 kept
 * the screen busy for about an hour. Cut to a screenful, the screen is the one
 * the full count leaves. (The suite's test timeout is what would catch a hang.)
 */
const HUGE = 2147483647;
// A screen with scrollback, a scroll region, text in every row and tab stops set and cleared.
const SETUP = 'x\r\n'.repeat(12) + 'row1\r\nrow2 long line\r\nrow3\r\nrow4\r\nrow5\r\nrow6\x1b[2;5r\x1b[3;4H\x1b[3g\x1b[9G\x1bH\x1b[3;4H';
const cases: Array<[string, string, (s: Screen) => number]> = [
  ['SU', 'S', (s) => s.rows],
  ['SD', 'T', (s) => s.rows],
  ['IL', 'L', (s) => s.rows],
  ['DL', 'M', (s) => s.rows],
  ['CHT', 'I', (s) => s.cols],
  ['CBT', 'Z', (s) => s.cols],
];
const tempDir = useFileTempDirs();

describe('counts past a screenful', () => {
  it.each(cases)('%s with a count of 2^31-1 leaves the screen a screenful leaves, at once', (_name, final, bound) => {
    const huge = new Screen({ rows: 6, cols: 20, scrollback: 10 });
    const screenful = new Screen({ rows: 6, cols: 20, scrollback: 10 });
    const untouched = new Screen({ rows: 6, cols: 20, scrollback: 10 });
    for (const [s, count] of [[huge, HUGE], [screenful, bound(screenful)]] as const) s.writeNow(`${SETUP}\x1b[${count}${final}Z\x1b[2;3${final}`);
    untouched.writeNow(`${SETUP}Z\x1b[2;3${final}`);
    expect(state(huge)).toEqual(state(screenful));
    expect(state(huge)).not.toEqual(state(untouched)); // the count did something
    for (const s of [huge, screenful, untouched]) s.dispose();
  });

  it('a cast that asks for them plays to its final screen', async () => {
    const cast = join(tempDir(), 'counts.cast');
    const output = `top\\r\\nmid\\r\\nend\\u001b[${HUGE}S\\u001b[${HUGE}T\\u001b[${HUGE}L\\u001b[${HUGE}M\\u001b[${HUGE}I\\u001b[${HUGE}Z\\u001b[1;1Hafter`;
    writeFileSync(cast, `{"version": 2, "width": 10, "height": 3}\n[0.1, "o", "${output}"]\n`);
    const r = await tapedeck(['snapshot', cast]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('after');
  });
});
