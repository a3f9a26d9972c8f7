import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tapedeck, useFileTempDirs } from '../../helpers/cli.js';
import { Screen } from '../../../src/session/screen/screen.js';
import { MAX_CELL_UNITS } from '../../../src/session/screen/cluster-cap.js';
import xtermPackage from '@xterm/headless';

/**
 * What joins a cell is bounded: REP copies the cell's whole string into every
 * repeated cell, and a 12 KB cast (found by the 10,000-input fuzz, seed 77)
 * took `tapedeck snapshot` past a 4 GB heap.
 */
const tempDir = useFileTempDirs();

describe('a cell with more joined to it than a terminal keeps', () => {
  it('a cast that repeats a character with thousands of combining marks plays in bounded memory', async () => {
    const cast = join(tempDir(), 'zalgo-rep.cast');
    writeFileSync(cast, `{"version": 2, "width": 195, "height": 131}\n[0.1, "o", "e${'\\u0301'.repeat(5686)}\\u001b[999999999b"]\n[0.2, "o", "\\u001b[2;1Hend"]\n`);
    // Half a gigabyte of heap is far more than the screen needs; without the bound it was 4 GB and a crash.
    const r = await tapedeck(['snapshot', cast], { env: { NODE_OPTIONS: '--max-old-space-size=512' } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const first = r.stdout.split('\n')[0];
    expect(first.startsWith(`e${'\u0301'.repeat(MAX_CELL_UNITS - 1)}e`)).toBe(true);
  });

  it('keeps ordinary clusters whole, and cuts a run of marks at the bound', async () => {
    const s = new Screen({ rows: 3, cols: 20 });
    const zalgo = `a${'\u0301\u0302\u0303\u0304'.repeat(8)}`; // 33 units: under the bound
    await s.write(`e\u0301\u0302|${zalgo}|a${'\u0301'.repeat(200)}|`);
    const chars = s.snapshot({ includeCells: true }).cells![0].map((c) => c.char);
    expect(chars.slice(0, 4)).toEqual(['e\u0301\u0302', '|', zalgo, '|']);
    expect(chars[4]).toBe(`a${'\u0301'.repeat(MAX_CELL_UNITS - 1)}`);
    expect(chars[5]).toBe('|'); // the marks past the bound took no cell
    s.dispose();
  });

  it('never goes past the bound with a mark outside the BMP, and leaves an xterm.js terminal of the caller alone', async () => {
    const s = new Screen({ rows: 2, cols: 10 });
    await s.write(`e${'\u0301'.repeat(MAX_CELL_UNITS - 2)}\u{1D167}\u{1D167}|`); // 63 units, then two 2-unit marks
    const first = s.snapshot({ includeCells: true }).cells![0][0].char;
    expect(first.length).toBe(MAX_CELL_UNITS - 1);
    // A Screen exists in this process; a plain @xterm/headless Terminal still keeps every mark, as xterm.js does.
    const own = new xtermPackage.Terminal({ rows: 2, cols: 10, allowProposedApi: true });
    // The same xterm.js module, so the same BufferLine class as the Screen's.
    const lineClass = (t: unknown) => Object.getPrototypeOf((t as { _core: { buffer: { lines: { get(i: number): object } } } })._core.buffer.lines.get(0));
    expect(lineClass(own)).toBe(lineClass(s.xterm));
    await new Promise<void>((resolve) => own.write(`a${'\u0301'.repeat(200)}`, resolve));
    expect(own.buffer.active.getLine(0)!.getCell(0)!.getChars().length).toBe(201);
    own.dispose();
    s.dispose();
  });
});
