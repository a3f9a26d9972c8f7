import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { agentHome, agentTty, ok } from '../../helpers/agent-tty.js';
import { ROOT } from '../../helpers/cli.js';
import { runParity } from '../../helpers/parity.js';
import { spawnTerminal } from '../../../src/index.js';

/**
 * After a width shrink the alternate screen keeps each line's old cells past
 * the new right edge (xterm.js does not reflow it). A program that redraws
 * with EL (prompt_toolkit, many hand-written TUIs) erases only up to the new
 * edge, so those cells stay in the buffer: no terminal shows them (tmux cuts
 * the line), and text, snapshots, goldens and waits must not read them.
 */
const FIXTURE = join(ROOT, 'test/fixtures/terminal/shrink_el.py');
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(cleanups.map((c) => c()));
});

describe.concurrent('a width shrink', () => {
  it('shows the same text as tmux of the same size (text, snapshot lines and cells)', async () => {
    const { tapedeck, tmux } = await runParity({
      command: ['python3', FIXTURE],
      rows: 6,
      cols: 80,
      cwd: ROOT,
      steps: [{ waitFor: 'size 6x80' }, { resize: { rows: 6, cols: 40 } }],
      final: 'size 6x40',
    });
    expect(tmux.lines[1]).toBe(`${'w'.repeat(32)}|edge-40`);
    expect(tapedeck.text).toEqual(tmux.lines);
    expect(tapedeck.cells).toEqual(tmux.cells);
  });

  it('text(), snapshot() and waits see only what is inside the new width', async () => {
    const t = spawnTerminal('python3', [FIXTURE], { rows: 6, cols: 80 });
    cleanups.push(() => t.dispose());
    await t.waitForText('size 6x80');
    t.resize(6, 40);
    await t.waitForText('size 6x40');
    expect(await t.text()).toBe(`size 6x40\n${'w'.repeat(32)}|edge-40\nend`);
    const snap = await t.snapshot();
    expect(snap.visibleLines.every((l) => l.length <= 40)).toBe(true);
    // The old line's tail is still in xterm's buffer, past the edge: a wait must not find it.
    const raw = t.screen.xterm.buffer.active.getLine(1)!.translateToString(true);
    expect(raw).toContain('edge-80');
    await expect(t.waitForText('edge-80', { timeoutMs: 300 })).rejects.toMatchObject({ code: 'WAIT_TIMEOUT' });
  });

  it('agent-tty wait --text does not match text past the right edge; snapshot leaves it out', async () => {
    const { home, cleanup } = agentHome();
    cleanups.push(cleanup);
    const { sessionId: id } = await ok(home, ['create', '--rows', '6', '--cols', '80', '--', 'python3', FIXTURE]);
    await ok(home, ['wait', id, '--text', 'size 6x80']);
    await ok(home, ['resize', id, '--rows', '6', '--cols', '40']);
    await ok(home, ['wait', id, '--text', 'size 6x40']);
    const r = await agentTty(home, ['wait', id, '--text', 'edge-80', '--timeout-ms', '300']);
    expect([r.code, r.env.result?.timedOut]).toEqual([5, true]);
    expect(r.env.result.lastState.visibleLines.join('\n')).not.toContain('edge-80');
    const snap = await ok(home, ['snapshot', id]);
    expect(snap.visibleLines[1]).toBe(`${'w'.repeat(32)}|edge-40`);
    await ok(home, ['destroy', id]);
  });
});
