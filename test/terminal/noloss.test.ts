import { describe, expect, it } from 'vitest';
import { runs } from '../helpers/soak.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnTerminal } from '../../src/session/index.js';
import { eventBytes } from '../../src/tape/asciicast/events.js';
import { readCast, recordTerminal } from '../../src/index.js';

/** What `seq 1 N` prints through a PTY (onlcr turns \n into \r\n). */
function seqOutput(n: number): Buffer {
  const parts: string[] = [];
  for (let i = 1; i <= n; i++) parts.push(`${i}\r\n`);
  return Buffer.from(parts.join(''));
}

const RUNS = Number(process.env.TAPEDECK_NOLOSS_RUNS ?? runs(2, 50));
const expected = seqOutput(200000);

describe('no output lost when the child exits', () => {
  it(`keeps every byte of seq 1 200000 in the event log and on the screen (${RUNS} runs)`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const t = spawnTerminal('seq', ['1', '200000'], { rows: 5, cols: 20 });
      const exit = await t.exited;
      const out = Buffer.concat(t.events.events.flatMap((e) => (e.type === 'output' ? [e.data] : [])));
      expect(exit.exitCode).toBe(0);
      // Compare lengths first so a failure prints a number, not 1.4 MB.
      expect(out.length, `run ${run}`).toBe(expected.length);
      expect(out.equals(expected), `run ${run}`).toBe(true);
      expect((await t.snapshot()).visibleLines).toEqual(['199997', '199998', '199999', '200000', '']);
      await t.dispose();
    }
  });

  it('keeps every byte in a recorded cast (5 recordings)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapedeck-noloss-'));
    try {
      for (let run = 0; run < 5; run++) {
        const out = join(dir, `seq-${run}.cast`);
        const { done } = await recordTerminal({ out, command: 'seq', args: ['1', '200000'] });
        expect((await done).exitCode).toBe(0);
        const { events } = await readCast(out);
        const bytes = Buffer.concat(events.flatMap((e) => (e.code === 'o' ? [eventBytes(e)] : [])));
        expect(bytes.length, `run ${run}`).toBe(expected.length);
        expect(bytes.equals(expected)).toBe(true);
        expect(events.at(-1)).toMatchObject({ code: 'x', data: '0' });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
