import { readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { VhsCommand, VhsDiagnostic, VhsTape } from './ast.js';
import { parseTape } from './parser.js';

/** Bounds on what one tape may pull in. */
export const MAX_TAPE_BYTES = 16 * 1024 * 1024;
export const MAX_SOURCE_DEPTH = 64;

export interface LoadResult {
  tape?: VhsTape;
  errors: VhsDiagnostic[];
}

/**
 * Reads a tape and every tape it sources (relative to the sourcing tape's
 * folder), parses all of them, and returns the commands in order, or every
 * error found in one pass. VHS drops a sourced tape's Output commands (they
 * would overwrite the outer tape's); so does this. VHS refuses any nested
 * Source; tapedeck follows nesting to MAX_SOURCE_DEPTH and reports a cycle
 * with the chain of tapes that closes it.
 */
export function loadTape(path: string, options: { display?: string; /** Sourced tapes are named relative to this folder (default: the current one). */ base?: string } = {}): LoadResult {
  const errors: VhsDiagnostic[] = [];
  const shown = options.display ?? path;
  const root = resolve(path);
  const first = readTapeText(root, shown, undefined, errors);
  if (first === undefined) return { errors };
  const commands = expand(first, root, shown, [root], errors, options.base ?? process.cwd());
  if (errors.length === 0 && commands.length === 0) {
    errors.push({ file: shown, line: 1, column: 1, length: 1, message: 'the tape has no commands', text: first.split('\n')[0] ?? '' });
  }
  return errors.length ? { errors } : { tape: { file: shown, commands }, errors };
}

type At = { file: string; line: number; column: number; length: number; text: string };

function readTapeText(abs: string, shown: string, from: At | undefined, errors: VhsDiagnostic[]): string | undefined {
  const fail = (message: string) => {
    errors.push(from ? { ...from, message } : { file: shown, line: 1, column: 1, length: 1, message, text: '' });
    return undefined;
  };
  let size: number;
  try {
    const st = statSync(abs);
    if (st.isDirectory()) return fail(`${shown} is a directory, not a tape`);
    size = st.size;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return fail(code === 'ENOENT' ? `tape ${shown} not found` : `cannot read ${shown}: ${code}`);
  }
  if (size > MAX_TAPE_BYTES) return fail(`${shown} is ${size} bytes; a tape may be at most ${MAX_TAPE_BYTES} bytes`);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    return fail(`cannot read ${shown}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a byte order mark is not a command
  if (text.length === 0 && from) return fail(`sourced tape ${shown} is empty`);
  return text;
}

function expand(text: string, abs: string, shown: string, chain: string[], errors: VhsDiagnostic[], base: string): VhsCommand[] {
  const parsed = parseTape(text, shown);
  errors.push(...parsed.errors);
  const out: VhsCommand[] = [];
  for (const cmd of parsed.commands) {
    if (cmd.kind !== 'Source') {
      out.push(cmd);
      continue;
    }
    const tok = cmd.pathToken;
    const at: At = { file: shown, line: tok.line, column: tok.column, length: Math.max(1, tok.literal.length + (tok.quote ? 2 : 0)), text: cmd.at.text };
    const target = resolve(dirname(abs), cmd.path);
    const targetShown = relative(base, target) || target;
    if (chain.includes(target)) {
      const names = [...chain.slice(chain.indexOf(target)), target].map((p) => relative(base, p) || p);
      errors.push({ ...at, message: `Source cycle: ${names.join(' -> ')}` });
      continue;
    }
    if (chain.length >= MAX_SOURCE_DEPTH) {
      errors.push({ ...at, message: `Source nested more than ${MAX_SOURCE_DEPTH} tapes deep` });
      return out;
    }
    const inner = readTapeText(target, targetShown, at, errors);
    if (inner === undefined) continue;
    const cmds = expand(inner, target, targetShown, [...chain, target], errors, base);
    for (const c of cmds) if (c.kind !== 'Output') out.push(c);
  }
  return out;
}

/**
 * Errors as a compiler prints them: `file:line:column: error: message`, the
 * source line, and a caret under the place, each error once, in file order.
 */
export function formatDiagnostics(errors: readonly VhsDiagnostic[]): string {
  return errors
    .map((e) => {
      const text = visible(e.text);
      const gutter = String(e.line).length;
      const pad = ' '.repeat(gutter);
      const caretAt = visible(e.text.slice(0, Math.max(0, e.column - 1))).length;
      return [
        `${e.file}:${e.line}:${e.column}: error: ${visible(e.message)}`,
        `${pad} |`,
        `${e.line} | ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`,
        `${pad} | ${' '.repeat(Math.min(caretAt, 201))}${'^'.repeat(Math.max(1, Math.min(e.length, 40)))}`,
      ].join('\n');
    })
    .join('\n\n');
}

/** Control characters shown, never sent to the user's terminal. */
function visible(s: string): string {
  return s.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => (c === '\r' ? '' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)).replace(/\t/g, ' ');
}
