import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordScript, type ScriptStep } from '../../src/recorder/terminal/script.js';

/**
 * Scripted recordings of real programs for the terminal replay tests. Each
 * program gets a pinned, quiet environment (no history files, no user config)
 * so that a replay differs from its recording only where the test changes it.
 */
export const BASH_ENV = { PS1: 'demo$ ', HISTFILE: '' };
export const BASH = ['bash', '--norc', '--noprofile'];
export const LESS_ENV = { LESS: undefined, LESSOPEN: undefined, LESSCLOSE: undefined, LESSHISTFILE: '-' };
export const PYTHON = ['python3', '-q', '-I'];

export interface Recorded {
  cast: string;
  command: string[];
  env: Record<string, string | undefined>;
  cwd: string;
}

async function record(dir: string, name: string, command: string[], env: Record<string, string | undefined>, steps: ScriptStep[], size = { rows: 12, cols: 50 }): Promise<Recorded> {
  const cast = join(dir, `${name}.cast`);
  // A loaded machine can take seconds to start python3 or vim: each wait gets room beyond the 5 s default.
  const patient = steps.map((step) => ('waitFor' in step && step.timeoutMs === undefined ? { ...step, timeoutMs: 30_000 } : step));
  await recordScript({ out: cast, command: command[0], args: command.slice(1), env, cwd: dir, ...size, steps: patient });
  return { cast, command, env, cwd: dir };
}

export function recordBash(dir: string, name = 'bash'): Promise<Recorded> {
  return record(dir, name, BASH, BASH_ENV, [
    { waitFor: 'demo$' },
    { type: 'echo hello\r' },
    { waitFor: 'hello\ndemo$' },
    { marker: 'echoed' },
    { type: 'printf "%s\\n" a b c\r' },
    { waitFor: 'c\ndemo$' },
    { type: 'exit 3\r' },
  ]);
}

export function writeNotes(dir: string, content = 'first line\nsecond line\nthird line\n'): void {
  writeFileSync(join(dir, 'notes.txt'), content);
}

export function recordVim(dir: string, name = 'vim'): Promise<Recorded> {
  writeNotes(dir);
  return record(dir, name, ['vim', '-u', 'NONE', '-i', 'NONE', '-n', 'notes.txt'], {}, [
    { waitFor: '"notes.txt"' },
    { marker: 'opened' },
    { type: 'Go' },
    { type: 'added line' },
    { press: 'Escape' },
    { marker: 'edited' },
    { type: ':q!\r' },
  ]);
}

export function writeNumbered(dir: string, prefix = 'line'): void {
  writeFileSync(join(dir, 'numbers.txt'), Array.from({ length: 60 }, (_, i) => `${prefix} ${i + 1}`).join('\n') + '\n');
}

export function recordLess(dir: string, name = 'less'): Promise<Recorded> {
  writeNumbered(dir);
  return record(dir, name, ['less', 'numbers.txt'], LESS_ENV, [
    { waitFor: 'line 11' },
    { marker: 'top' },
    { type: ' ' },
    { waitFor: 'line 22' },
    { marker: 'page-2' },
    { type: 'q' },
  ]);
}

export function recordPython(dir: string, name = 'python'): Promise<Recorded> {
  return record(dir, name, PYTHON, {}, [
    { waitFor: '>>> ' },
    { type: '6*7\r' },
    { waitFor: '42' },
    { marker: 'answer' },
    { type: 'print("hi " * 3)\r' },
    { waitFor: 'hi hi hi' },
    { type: 'exit()\r' },
  ]);
}
