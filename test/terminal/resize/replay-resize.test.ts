import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCast, recordScript, replayTerminal } from '../../../src/index.js';
import { ROOT, tempDir } from '../../helpers/cli.js';
import { runs, SOAK } from '../../helpers/soak.js';

/**
 * Tapes with window resizes replayed again and again, idle and under CPU
 * load: a real tig (80x24 -> 100x30 -> 60x20) and a prompt_toolkit app. A
 * resize goes out once the program is quiet, output still under way is not
 * taken for the program's answer to it, and the program settles after it
 * before the next input. TAPEDECK_SOAK=1 runs 200 idle and 50 loaded replays
 * of each (the counts issue 26 asks for); the suite runs a few.
 */
const COUNTS = { tig: { idle: runs(3, 200), loaded: runs(1, 50) }, prompt_toolkit: { idle: runs(2, 200), loaded: runs(1, 50) } }; // python + prompt_toolkit start in 0.3-5 s
const { dir, cleanup } = tempDir('tapedeck-resize-replay-');
const burners: ChildProcess[] = [];
afterAll(() => {
  for (const b of burners) b.kill('SIGKILL');
  cleanup();
});

const GIT_ENV = { GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com', GIT_AUTHOR_DATE: '2026-01-02T03:04:05Z', GIT_COMMITTER_DATE: '2026-01-02T03:04:05Z' };

function gitRepo(at: string): void {
  mkdirSync(at, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', ['-C', at, ...args], { env: { ...process.env, ...GIT_ENV }, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  for (let i = 1; i <= 30; i++) {
    writeFileSync(join(at, 'f.txt'), `change ${i}\n`);
    git('add', 'f.txt');
    git('commit', '-q', '-m', `commit number ${i} with a subject long enough to be cut at sixty columns`);
  }
}

interface Tape {
  cast: string;
  env: Record<string, string | undefined>;
  cwd: string;
}

async function recordTig(): Promise<Tape> {
  const cwd = join(dir, 'tig');
  gitRepo(cwd);
  // HOME outside the repository: tig keeps its history there, which would show as an untracked change.
  const home = join(dir, 'tig-home');
  mkdirSync(home, { recursive: true });
  const env = { HOME: home, TIGRC_USER: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  const cast = join(dir, 'tig.cast');
  await recordScript({
    out: cast, command: 'tig', args: [], cwd, env, rows: 24, cols: 80,
    steps: [
      { waitFor: 'commit number 30', timeoutMs: 30_000 },
      { resize: { rows: 30, cols: 100 } },
      { waitFor: 'commit number 4 with', timeoutMs: 30_000 }, // in view only at 30 rows
      { press: 'Down' },
      { resize: { rows: 20, cols: 60 } },
      { press: 'Down' },
      { type: 'q' },
    ],
  });
  return { cast, env, cwd };
}

async function recordPromptToolkit(): Promise<Tape> {
  const cwd = join(dir, 'ptk');
  mkdirSync(cwd, { recursive: true });
  const cast = join(dir, 'ptk.cast');
  await recordScript({
    out: cast, command: 'python3', args: [join(ROOT, 'test/fixtures/terminal/ptk_size.py')], cwd, env: {}, rows: 24, cols: 80,
    steps: [
      { waitFor: 'size 24x80', timeoutMs: 30_000 },
      { resize: { rows: 30, cols: 100 } },
      { waitFor: 'size 30x100', timeoutMs: 30_000 },
      { type: 'a' },
      { waitFor: 'typed:a' },
      { resize: { rows: 20, cols: 60 } },
      { waitFor: 'size 20x60', timeoutMs: 30_000 },
      { type: 'b' },
      { waitFor: 'typed:ab' },
      { type: 'q' },
    ],
  });
  return { cast, env: {}, cwd };
}

/** Two busy loops per core's worth of the machine: the "loaded" runs. */
function startLoad(): () => void {
  const procs = [0, 1].map(() => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  burners.push(...procs);
  return () => procs.forEach((p) => p.kill('SIGKILL'));
}

async function replayMany(tape: Tape, times: number): Promise<string[]> {
  const failures: string[] = [];
  for (let i = 0; i < times; i++) {
    const result = await replayTerminal(tape.cast, { env: tape.env, cwd: tape.cwd, stepTimeoutMs: 15_000 });
    if (result.drifts.length > 0) failures.push(`run ${i + 1}: ${result.drifts.map((d) => `${d.code} ${d.message}`).join('; ')}`);
  }
  return failures;
}

describe.concurrent('replaying tapes with resizes', () => {
  for (const [name, recordIt] of [['tig', recordTig], ['prompt_toolkit', recordPromptToolkit]] as const) {
    const { idle: IDLE, loaded: LOADED } = COUNTS[name];
    it(`${name}: ${IDLE} idle and ${LOADED} loaded replays, none flaky`, async () => {
      const tape = await recordIt();
      const { events } = await readCast(tape.cast);
      expect(events.filter((e) => e.code === 'r').map((e) => e.data)).toEqual(['100x30', '60x20']);
      const idle = await replayMany(tape, IDLE);
      const stop = startLoad();
      let loaded: string[];
      try {
        loaded = await replayMany(tape, LOADED);
      } finally {
        stop();
      }
      if (SOAK) console.log(`${name}: flaky ${idle.length}/${IDLE} idle, ${loaded.length}/${LOADED} loaded`);
      expect({ idle, loaded }).toEqual({ idle: [], loaded: [] });
    }, SOAK ? 3_600_000 : 180_000);
  }
});
