import type { Terminal } from '../session/terminal.js';
import { escapeControl } from './format.js';

/** How many of a program's last lines a failure shows. */
const LAST_LINES = 15;

/** True when the program ended in failure: a non-zero code or a signal. */
export function crashed(term: Terminal): boolean {
  return !term.running && (term.exitSignal !== null || (term.exitCode !== null && term.exitCode !== 0));
}

function how(term: Terminal): string {
  return term.exitSignal ? `was killed by ${term.exitSignal}${term.exitCode !== null ? ` (code ${term.exitCode})` : ''}` : `exited with code ${term.exitCode}`;
}

/** "`node app.js` exited with code 1", or undefined while it runs. */
export function exitHeadline(term: Terminal): string | undefined {
  if (term.running) return undefined;
  return `the program \`${[term.command, ...term.args].join(' ')}\` ${how(term)}`;
}

/** The last non-blank lines it wrote (scrollback included, so the start of a stack trace is not lost). */
export async function lastLines(term: Terminal, count = LAST_LINES): Promise<string[]> {
  const snap = await term.snapshot({ includeScrollback: true });
  const lines = [...(snap.scrollbackLines ?? []), ...snap.visibleLines].map((l) => l.replace(/\s+$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.slice(-count);
}

/** A paragraph for a failure message when the program has exited; '' while it runs. */
export async function exitNote(term: Terminal): Promise<string> {
  if (term.running) return '';
  await term.exited; // all its output is on the screen
  const head = exitHeadline(term)!;
  const lines = await lastLines(term);
  const body = lines.length ? lines.map((l) => `  │${escapeControl(l)}`).join('\n') : '  (it wrote nothing)';
  return `\n\n${head}; the last lines it wrote:\n${body}`;
}
