#!/usr/bin/env node
/**
 * Re-records the terminal tapes under goldens/terminal/ (used by
 * test/terminal/replay-cli.test.ts) by scripting real programs. Run from the
 * repository root after a build: node scripts/record-terminal-goldens.mjs
 * Each tape records its exact argv, so `tapedeck replay goldens/terminal/*.cast`
 * needs no command and no environment of its own.
 */
import { recordScript } from '../dist/index.js';

const size = { rows: 10, cols: 50 };
const bash = ['env', 'PS1=demo$ ', 'HISTFILE=', 'bash', '--norc', '--noprofile'];

const tapes = [
  {
    out: 'goldens/terminal/bash-echo.cast',
    argv: bash,
    steps: [{ waitFor: 'demo$' }, { type: 'echo hello\r' }, { waitFor: 'hello\ndemo$' }, { marker: 'echoed' }, { type: 'exit 3\r' }],
  },
  {
    out: 'goldens/terminal/vim-notes.cast',
    argv: ['vim', '-u', 'NONE', '-i', 'NONE', '-n', 'test/fixtures/terminal/notes.txt'],
    // Wide enough for vim's file message: a wrapped one would stop at a hit-enter prompt.
    size: { rows: 10, cols: 80 },
    steps: [{ waitFor: 'notes.txt"' }, { marker: 'opened' }, { type: 'Go' }, { type: 'added line' }, { press: 'Escape' }, { marker: 'edited' }, { type: ':q!\r' }],
  },
  {
    out: 'goldens/terminal/less-numbers.cast',
    // The caller's LESS options would change the screen: the tape pins them in its own argv.
    argv: ['env', '-u', 'LESS', '-u', 'LESSOPEN', '-u', 'LESSCLOSE', 'LESSHISTFILE=-', 'less', 'test/fixtures/terminal/numbers.txt'],
    steps: [{ waitFor: 'line 9' }, { marker: 'top' }, { type: ' ' }, { waitFor: 'line 18' }, { marker: 'page-2' }, { type: 'q' }],
  },
];

for (const tape of tapes) {
  const result = await recordScript({ out: tape.out, command: tape.argv[0], args: tape.argv.slice(1), ...(tape.size ?? size), steps: tape.steps });
  process.stderr.write(`recorded ${tape.out} (exit ${result.exitCode}, ${result.durationSeconds.toFixed(2)} s)\n`);
}
