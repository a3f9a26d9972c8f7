import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tapedeckInProcess, tempDir } from '../helpers/cli.js';
import { agentHome, ok } from '../helpers/agent-tty.js';

const { home, cleanup } = agentHome();
afterAll(async () => cleanup());

describe('record export --format asciicast keeps the session replayable (seed 002 §16)', () => {
  it("keeps the session's --cwd and --env: the exported cast replays clean", async () => {
    const work = tempDir('export-cwd-');
    const dir = join(work.dir, 'project dir');
    mkdirSync(dir);
    const created = await ok(home, ['create', '--cwd', dir, '--env', 'FOO=bar', '--rows', '5', '--cols', '60', '--', 'sh', '-c', 'pwd; echo "FOO=$FOO"'], { env: { AGENT_TTY_EXIT_LINGER_MS: '0' } });
    const id = created.sessionId as string;
    await ok(home, ['wait', id, '--exit', '--timeout-ms', '20000']);
    const cast = join(work.dir, 'out', 'session.cast');
    mkdirSync(join(work.dir, 'out'));
    await ok(home, ['record', 'export', id, '--format', 'asciicast', '--out', cast]);
    const header = JSON.parse(readFileSync(cast, 'utf8').split('\n')[0]);
    expect(header.tapedeck).toMatchObject({ cwd: dir, cwdFromTape: '../project dir', argv: ['env', 'FOO=bar', 'sh', '-c', 'pwd; echo "FOO=$FOO"'] });
    expect(header.env).toEqual({ FOO: 'bar' });
    expect(readFileSync(cast, 'utf8')).toContain('FOO=bar');
    // Replayed by tapedeck (a tape from outside the project's goldens: --trust-tape to run its command).
    const replay = await tapedeckInProcess(['replay', cast, '--trust-tape'], { env: { CI: 'true' } });
    expect(replay.stderr).toContain('0 drift(s)');
    expect(replay.code).toBe(0);
  });
});
