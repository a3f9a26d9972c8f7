import { parseArgs, type ParseArgsConfig } from 'node:util';
import { usageError } from '../core/diagnostics/errors.js';

/**
 * Splits argv at the first `--` (what follows is the command under test, passed
 * through untouched) and parses the options before it strictly, turning
 * parseArgs' errors into usage errors.
 */
export function splitCommand(argv: string[]): { own: string[]; command: string[] } {
  const i = argv.indexOf('--');
  return i === -1 ? { own: argv, command: [] } : { own: argv.slice(0, i), command: argv.slice(i + 1) };
}

type StrictConfig<T extends NonNullable<ParseArgsConfig['options']>> = { args: string[]; options: T; allowPositionals: true; strict: true };

export function parseOptions<T extends NonNullable<ParseArgsConfig['options']>>(
  commandName: string,
  argv: string[],
  options: T,
): ReturnType<typeof parseArgs<StrictConfig<T>>> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    const message = (err as Error).message;
    const unknown = /Unknown option '([^']+)'/.exec(message);
    if (unknown) throw usageError(`${commandName}: unknown option ${unknown[1]} (see tapedeck ${commandName} --help)`);
    throw usageError(`${commandName}: ${message.replace(/^TypeError \[[A-Z_]+\]: /, '')}`);
  }
}

/** Node's timers overflow above this (and then fire at once). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

export function parseIntOption(name: string, value: string | undefined, fallback: number, min = 0, max = MAX_TIMEOUT_MS): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw usageError(`--${name} expects a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return n;
}
