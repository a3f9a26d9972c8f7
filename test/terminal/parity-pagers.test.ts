import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, tempDir } from '../helpers/cli.js';
import { cellRows, runParity, type ParityCase, type ParityResult } from '../helpers/parity.js';

/**
 * Parity with tmux for full-screen programs: vim (syntax colours, a vertical
 * and a horizontal split), less, git log in its pager and htop, each with
 * emoji and CJK on screen, driven with the same bytes in tapedeck and in a
 * tmux pane of the same size and compared cell for cell.
 */
const FIXTURES = join(ROOT, 'test/fixtures/parity');
const EMOJI = /[\u{1F300}-\u{1FAFF}\u{2728}\u{2B50}]/u;
const { dir, cleanup } = tempDir('tapedeck-parity-pagers-');
const LESS_ENV = { LESS: undefined, LESSOPEN: undefined, LESSCLOSE: undefined, LESSHISTFILE: '-' };

function expectParity(r: ParityResult): void {
  expect(cellRows(r.tapedeck)).toEqual(cellRows(r.tmux));
  expect(r.tapedeck.cursor).toEqual(r.tmux.cursor);
  expect(r.tapedeck.lines.join('\n')).toMatch(EMOJI);
}

/** A repository whose history has emoji and CJK in its messages, with fixed dates and authors. */
function makeRepo(): string {
  const repo = join(dir, 'repo');
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: repo,
      env: { ...process.env, GIT_AUTHOR_NAME: 'Ada 😀', GIT_AUTHOR_EMAIL: 'ada@example.com', GIT_COMMITTER_NAME: 'Ada 😀', GIT_COMMITTER_EMAIL: 'ada@example.com', GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z', GIT_CONFIG_GLOBAL: '/dev/null' },
    });
  execFileSync('mkdir', ['-p', repo]);
  git('init', '-q', '-b', 'main');
  // Long enough that some lines wrap at 60 columns: where they wrap depends on the widths.
  const messages = ['🚀 launch 漢字', '✨ sparkle the docs 😀😀😀😀😀😀😀😀😀😀😀😀😀😀 and more', 'fix: émoji widths 😀😀', '漢字 and 🥲 in one line', 'plain ascii message'];
  for (let i = 0; i < 12; i++) git('commit', '-q', '--allow-empty', '-m', `${messages[i % messages.length]} #${i + 1}`);
  return repo;
}

let repo = '';
beforeAll(() => {
  repo = makeRepo();
});
afterAll(cleanup);

const cases: Record<string, () => ParityCase> = {
  'vim with syntax colours, a vertical split and a horizontal split': () => ({
    command: ['vim', '-u', 'NONE', '-i', 'NONE', '-n', '-N', '-c', 'syntax on', '-c', 'vsplit', '-c', 'split', 'sample.py'],
    rows: 24,
    cols: 80,
    cwd: FIXTURES,
    steps: [
      { waitFor: 'def greet' },
      { settle: 50 },
      { type: '3Go' },
      { type: '# 🚀 edited 漢字 ✨' },
      { press: 'Escape' },
      { type: ':echo "done 😀"\r' },
    ],
    final: 'done 😀',
  }),
  'less paging a file with emoji, CJK and wrapped lines': () => ({
    command: ['less', 'long.txt'],
    env: LESS_ENV,
    rows: 20,
    cols: 60,
    cwd: FIXTURES,
    steps: [{ waitFor: 'line 01' }, { settle: 50 }, { type: ' ' }, { waitFor: 'line 2' }, { settle: 50 }, { type: 'j' }, { type: '/line 42\r' }],
    final: /^line 42/m,
  }),
  'git log in its pager': () => ({
    command: ['git', '-c', 'core.pager=less', '-c', 'color.ui=always', 'log', '--format=%h %an %s'],
    env: { ...LESS_ENV, GIT_CONFIG_GLOBAL: '/dev/null', GIT_PAGER: undefined, PAGER: undefined },
    rows: 10,
    cols: 60,
    cwd: repo,
    steps: [{ waitFor: '#12' }, { settle: 50 }, { type: ' ' }],
    final: '#1\n',
  }),
  'htop showing a process with an emoji name': () => ({
    command: ['bash', '-c', 'exec -a "😀🚀 sleeper 漢字" sleep 30 & exec htop -p $!'],
    rows: 20,
    cols: 100,
    cwd: FIXTURES,
    steps: [],
    final: 'sleeper 漢字',
    // Meters, ids and times are live values: only the layout and the process line's text are compared.
    mask: [/^\s*(\d+\s*\[|Tasks|Load|Uptime|Mem|Swp|CPU)/],
    replace: [[/\d/g, '0']],
  }),
};

/**
 * htop's screen holds live values (CPU%, state, times) that masks can only approximate: a value that
 * gains a digit moves its neighbours. Like a golden comparison, retry until both sides agree or the
 * attempts run out, then fail with the last difference.
 */
async function parityEventually(make: () => ParityCase, attempts: number): Promise<ParityResult> {
  let last = await runParity(make());
  for (let i = 1; i < attempts && JSON.stringify(cellRows(last.tapedeck)) !== JSON.stringify(cellRows(last.tmux)); i++) last = await runParity(make());
  return last;
}

const LIVE_VALUES = new Set(['htop showing a process with an emoji name']);

describe.concurrent('parity with tmux: full-screen programs', () => {
  for (const [name, make] of Object.entries(cases)) {
    it(name, async () => expectParity(await parityEventually(make, LIVE_VALUES.has(name) ? 3 : 1)));
  }
});
