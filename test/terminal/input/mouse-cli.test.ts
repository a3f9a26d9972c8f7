import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { agentHome, agentTty, ok } from '../../helpers/agent-tty.js';
import { CLI, ROOT, tapedeckInProcess, tempDir } from '../../helpers/cli.js';
import { readCast, spawnTerminal } from '../../../src/index.js';

/**
 * Mouse input through the session CLI (`agent-tty mouse`, seed 002 envelopes
 * and exit codes) and in recordings: a session's exported cast and an
 * interactive `tapedeck record` carry the mouse bytes as input, and a replay
 * sends them again. The program prints the hex of every read, so each check
 * is on the exact bytes (written out from xterm's ctlseqs, not computed).
 */
const BYTES = join(ROOT, 'test/fixtures/terminal/mouse_bytes.py');
const hex = (s: string) => Buffer.from(s, 'latin1').toString('hex');
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

async function session(modes: string[]): Promise<{ home: string; id: string }> {
  const { home, cleanup } = agentHome();
  cleanups.push(cleanup);
  const { sessionId: id } = await ok(home, ['create', '--rows', '24', '--cols', '100', '--', 'python3', BYTES, ...modes]);
  await ok(home, ['wait', id, '--text', `ready ${modes.join(' ') || 'none'}`]);
  return { home, id };
}

describe.concurrent('agent-tty mouse', () => {
  it('clicks, drags and scrolls with the bytes xterm sends, and says what it sent', async () => {
    const { home, id } = await session(['1002', '1006']);
    const click = await agentTty(home, ['mouse', id, 'click', '--row', '2', '--col', '4', '--button', 'right', '--modifier', 'ctrl']);
    expect(click.code).toBe(0);
    expect(click.env).toMatchObject({ ok: true, command: 'mouse', result: { sessionId: id, action: 'click', sent: true, tracking: 'button', encoding: 'sgr', events: 2, bytesWritten: 20 } });
    await ok(home, ['wait', id, '--text', `got ${hex('\x1b[<18;5;3M\x1b[<18;5;3m')}`]);
    await ok(home, ['mouse', id, 'drag', '--row', '0', '--col', '0', '--to-row', '1', '--to-col', '0']);
    await ok(home, ['wait', id, '--text', `got ${hex('\x1b[<0;1;1M\x1b[<32;1;2M\x1b[<0;1;2m')}`]);
    await ok(home, ['mouse', id, 'scroll', '--row', '3', '--col', '3', '--direction', 'up', '--count', '2']);
    await ok(home, ['wait', id, '--text', `got ${hex('\x1b[<64;4;4M'.repeat(2))}`]);
  });

  it('sends nothing while the program has not enabled reporting: exit 4, sent false', async () => {
    const { home, id } = await session([]);
    const r = await agentTty(home, ['mouse', id, 'click', '--row', '1', '--col', '1']);
    expect(r.code).toBe(4);
    expect(r.env).toMatchObject({ ok: true, result: { sent: false, bytesWritten: 0, tracking: 'none' } });
    await ok(home, ['type', id, 'z']);
    await ok(home, ['wait', id, '--text', 'got 7a']);
    const snap = await ok(home, ['snapshot', id]);
    expect(snap.visibleLines.filter((l: string) => l.startsWith('got '))).toEqual(['got 7a']);
  });

  it('bad input is a usage error naming what was wrong (exit 2), checked before the session is reached', async () => {
    const { home, id } = await session(['1000']);
    const cases: [string[], RegExp][] = [
      [['mouse', id, 'tap', '--row', '0', '--col', '0'], /action .* must be one of click, drag, scroll, move, got "tap"/],
      [['mouse', id, 'click', '--row', '0'], /give --row N and --col N/],
      [['mouse', id, 'click', '--row', '30', '--col', '0'], /mouse row must be a whole number from 0 to 23/],
      [['mouse', id, 'click', '--row', '0', '--col', '0', '--button', 'fourth'], /--button must be one of left, middle, right/],
      [['mouse', id, 'click', '--row', '0', '--col', '0', '--modifier', 'hyper'], /--modifier must be one of shift, alt, meta, ctrl/],
      [['mouse', id, 'drag', '--row', '0', '--col', '0'], /--to-row N and --to-col N/],
      [['mouse', id, 'click', '--row', '0', '--col', '0', '--count', '2'], /--count is for mouse scroll/],
      [['mouse', 'sess_missing', 'click', '--row', '0', '--col', '0', '--button', 'fourth'], /--button must be one of/],
    ];
    for (const [args, message] of cases) {
      const r = await agentTty(home, args);
      expect([r.code, r.env.ok, r.env.error?.code], args.join(' ')).toEqual([2, false, 'INVALID_INPUT']);
      expect(r.env.error!.message).toMatch(message);
    }
  });

  it("a session's exported cast keeps the clicks as input and replays clean", async () => {
    const { home, id } = await session(['1000']);
    await ok(home, ['mouse', id, 'click', '--row', '5', '--col', '7']);
    await ok(home, ['wait', id, '--text', `got ${hex('\x1b[M (&\x1b[M#(&')}`]);
    await ok(home, ['type', id, 'q']);
    await ok(home, ['wait', id, '--exit']);
    const dir = tempDir('tapedeck-mouse-cast-');
    cleanups.push(dir.cleanup);
    const cast = join(dir.dir, 'session.cast');
    await ok(home, ['record', 'export', id, '--format', 'asciicast', '--out', cast]);
    const { events } = await readCast(cast);
    expect(events.filter((e) => e.code === 'i').map((e) => e.data)).toEqual(['\x1b[M (&\x1b[M#(&', 'q']);
    const replay = await tapedeckInProcess(['replay', cast, '--trust-tape']);
    expect(replay.code, replay.stderr).toBe(0);
  });
});

describe('tapedeck record (interactive) with the mouse', () => {
  it('records mouse events the real terminal sends as input, and the replay sends them again', async () => {
    const dir = tempDir('tapedeck-mouse-record-');
    cleanups.push(dir.cleanup);
    const out = join(dir.dir, 'mouse.cast');
    // The outer terminal plays the user's: it sees the program's mouse modes through the recorder and reports clicks as xterm would.
    const t = spawnTerminal('node', [CLI, 'record', '--out', out, '--', 'python3', BYTES, '1000', '1006'], { rows: 12, cols: 80, cwd: dir.dir });
    try {
      await t.waitForText('ready 1000 1006');
      expect(t.screen.mouseModes).toEqual({ tracking: 'normal', encoding: 'sgr' });
      t.click(3, 9);
      await t.waitForText(`got ${hex('\x1b[<0;10;4M\x1b[<0;10;4m')}`);
      t.scroll(0, 0, 'down');
      await t.waitForText(`got ${hex('\x1b[<65;1;1M')}`);
      t.type('q');
      expect((await t.waitForExit({ timeoutMs: 20_000 })).exitCode).toBe(0);
    } finally {
      await t.dispose();
    }
    const { events } = await readCast(out);
    expect(events.filter((e) => e.code === 'i').map((e) => e.data).join('')).toBe('\x1b[<0;10;4M\x1b[<0;10;4m\x1b[<65;1;1Mq');
    const replay = await tapedeckInProcess(['replay', out, '--trust-tape']);
    expect(replay.code, replay.stderr).toBe(0);
  });
});
