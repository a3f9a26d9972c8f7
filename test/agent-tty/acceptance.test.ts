import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, ROOT, run, tempDir } from '../helpers/cli.js';
import { AGENT_TTY, ok, processesMentioning, socketsUnder } from '../helpers/agent-tty.js';

/**
 * Seed 002 §23's acceptance checklist, driven by a plain bash script (the
 * non-interactive agent): vim in a session, typed into, waited on, snapshotted,
 * screenshotted, resized, exported as a cast, destroyed, and the cast replayed
 * by `tapedeck replay` against a fresh vim with exit 0.
 */
const work = tempDir('agent-tty-accept-');
afterAll(() => work.cleanup());

describe('agent-tty acceptance (§23)', () => {
  it('drives vim end to end and the exported cast replays clean', async () => {
    const script = join(ROOT, 'test/fixtures/agent-tty/acceptance.sh');
    const r = await run(['bash', script, AGENT_TTY, CLI, work.dir], { timeoutMs: 120_000 });
    expect(r.stderr).toBe('');
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^created sess_/);
    // matched, isAltScreen, pixelWidth, rows, format, destroyed, the replay summary, replayed
    expect(lines.slice(1, 7)).toEqual(['true', 'true', '736', '30', 'asciicast', 'true']);
    expect(lines.join('\n')).toMatch(/0 drift\(s\)/);
    expect(lines.at(-1)).toBe('replayed');
    expect(r.code).toBe(0);

    const png = readFileSync(join(work.dir, 'vim.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // The cast carries the agent's inputs and the resize, and ends before the destroy.
    const cast = readFileSync(join(work.dir, 'session.cast'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(cast[0]).toMatchObject({ version: 3, term: { cols: 80, rows: 24 }, tapedeck: { argv: ['vim', '-u', 'NONE', '-N', '-i', 'NONE', '-n', '--cmd', 'set shortmess+=I'] } });
    expect(cast.filter((e) => e[1] === 'i').map((e) => e[2])).toEqual(['ihello from an agent', '\x1b', 'oline two', '\x1b']);
    expect(cast.filter((e) => e[1] === 'r').map((e) => e[2])).toEqual(['100x30']);
    expect(cast.some((e) => e[1] === 'x')).toBe(false);

    const home = join(work.dir, 'home');
    const id = lines[0].slice('created '.length);
    // Exports are reproducible: the same (now final) log gives the same bytes.
    const [a, b] = [join(work.dir, 'a.cast'), join(work.dir, 'b.cast')];
    await ok(home, ['record', 'export', id, '--format', 'asciicast', '--out', a]);
    await ok(home, ['record', 'export', id, '--out', b]);
    expect(readFileSync(a, 'utf8')).toBe(readFileSync(b, 'utf8'));
    const info = await ok(home, ['inspect', id]);
    expect(info.artifacts.byKind).toEqual({ snapshot: 1, screenshot: 1, recording: 3 });
    expect(existsSync(info.session.socketPath)).toBe(false);
    expect(processesMentioning(home)).toEqual([]);
    expect(socketsUnder(home)).toEqual([]);
  }, 150_000); // the script's own bound (120 s) ends it first, with its stderr

  it('runs through `tapedeck session` too (one implementation)', async () => {
    const r = await run(['node', CLI, 'session', 'version', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toMatchObject({ cliVersion: expect.any(String), protocolVersion: '1.0.0', rendererBackends: ['tapedeck-raster'] });
    const missing = await run(['node', CLI, 'session', 'inspect', 'sess_nope', '--home', work.dir]);
    expect([missing.code, missing.stderr]).toEqual([3, 'tapedeck session: Session "sess_nope" was not found.\n']);
  });
});
