import { TapedeckError } from '../../core/diagnostics/errors.js';
import type { CastHeader } from '../../tape/asciicast/events.js';

/**
 * Which program a terminal tape is replayed against. Nothing in a tape is
 * ever passed to a shell: tapedeck's own argv is used as is, and asciinema's
 * display string is split into words here, refusing anything that would only
 * mean something to a shell.
 */
export function commandForCast(path: string, header: CastHeader, override?: readonly string[]): string[] {
  if (override && override.length > 0) return [...override];
  if (header.argv && header.argv.length > 0) return [...header.argv];
  if (header.command && header.command.trim() !== '') {
    try {
      return splitCommandLine(header.command);
    } catch (err) {
      throw headerError(path, `cannot run the recorded command ${JSON.stringify(header.command)} without a shell (${(err as Error).message}); give the command after --, e.g. tapedeck replay ${path} -- CMD ARGS...`);
    }
  }
  throw headerError(path, `the tape does not record its command; give it after --, e.g. tapedeck replay ${path} -- CMD ARGS...`);
}

/** A problem with what the header (line 1) records: named file:1, as editors link it. */
function headerError(path: string, message: string): TapedeckError {
  return new TapedeckError('INVALID_INPUT', message, { location: { file: path, line: 1 } });
}

/** Characters that only a shell gives meaning to, outside quotes. */
const SHELL_SYNTAX = new Set(['|', '&', ';', '<', '>', '(', ')', '$', '`']);

/**
 * POSIX-style word splitting without expansion: whitespace separates words,
 * '...' is literal, "..." honours \\ \" \$ \`, a backslash outside quotes
 * escapes the next character. Pipes, redirections, substitutions and
 * variables are refused rather than passed on literally.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Error('unbalanced single quote');
      word += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (ch === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length && '\\"$`\n'.includes(line[j + 1])) word += line[++j];
        else if (line[j] === '$' || line[j] === '`') throw new Error(`shell substitution ${JSON.stringify(line[j])} inside double quotes`);
        else word += line[j];
      }
      if (j >= line.length) throw new Error('unbalanced double quote');
      i = j;
      inWord = true;
    } else if (ch === '\\') {
      if (i + 1 >= line.length) throw new Error('trailing backslash');
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if (SHELL_SYNTAX.has(ch)) {
      throw new Error(`shell syntax ${JSON.stringify(ch)}`);
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  if (words.length === 0) throw new Error('empty command');
  return words;
}
