import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tapedeck, useFileTempDirs } from '../../helpers/cli.js';
import { Screen } from '../../../src/session/screen/screen.js';

/**
 * xterm.js 6's reflow of wide characters with no scrollback to spare could
 * leave the screen with fewer lines than rows; the next write to the last row
 * threw. Found by a fuzz of writes and resizes on screens without scrollback
 * (what screenshots, SVG, GIF, video and replay planning play casts on).
 */
const tempDir = useFileTempDirs();
const EVENTS = [['r', '4x4'], ['o', 'é'], ['o', '中文\ud83dxxxx\n'], ['r', '1x6'], ['r', '8x10'], ['o', '\u001b[11Hé']];

describe.concurrent('a resize that reflows wide characters without scrollback', () => {
  it('a cast that narrows to one column and widens again exports to SVG (it was an internal error)', async () => {
    const dir = tempDir();
    const cast = join(dir, 'reflow.cast');
    writeFileSync(cast, `{"version": 2, "width": 1, "height": 1}\n${EVENTS.map(([code, data], i) => JSON.stringify([0.1 * (i + 1), code, data])).join('\n')}\n`);
    const r = await tapedeck(['export', cast, '--format', 'svg', '--out', join(dir, 'reflow.svg')]);
    expect(r.stderr).toMatch(/wrote .*reflow\.svg/);
    expect(r.code).toBe(0);
  });

  it.each([0, 3, 1000])('leaves a line under every row (scrollback %i), and the last row takes the write', (scrollback) => {
    const s = new Screen({ rows: 1, cols: 1, scrollback });
    for (const [code, data] of EVENTS) {
      if (code === 'r') {
        const [cols, rows] = data.split('x').map(Number);
        s.resize(rows, cols);
      } else s.writeNow(data);
    }
    const buffer = (s.xterm as unknown as { _core: { buffer: { ybase: number; lines: { length: number } } } })._core.buffer;
    expect(buffer.lines.length).toBeGreaterThanOrEqual(buffer.ybase + s.rows);
    expect(s.visibleLines()).toHaveLength(10);
    expect(s.visibleLines()[9]).toBe('é');
    expect(s.cursor).toMatchObject({ row: 9, col: 1 });
    s.dispose();
  });
});
