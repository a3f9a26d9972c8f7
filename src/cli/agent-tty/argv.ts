import { AgentError } from '../../agent-tty/errors.js';

/**
 * A small strict option parser: `--name value`, `--name=value`, booleans,
 * repeatable options, `--` ending the options. With `restIsCommand`, the first
 * positional and everything after it are the command to run (create's
 * `[command...]`, whose own flags must not be parsed as ours).
 */
export type OptionKind = 'string' | 'boolean' | 'multi';
export type OptionSpec = Record<string, OptionKind>;

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

export const GLOBAL_OPTIONS: OptionSpec = {
  json: 'boolean',
  home: 'string',
  'log-level': 'string',
  'timeout-ms': 'string',
  profile: 'string',
  'no-color': 'boolean',
  help: 'boolean',
};

export function parseArgv(argv: string[], spec: OptionSpec, options: { restIsCommand?: boolean; command: string }): ParsedArgs {
  const values: ParsedArgs['values'] = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (token === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (token === '-h') {
      values.help = true;
      continue;
    }
    if (!token.startsWith('--') || token === '-') {
      if (options.restIsCommand) {
        positionals.push(...argv.slice(i));
        break;
      }
      positionals.push(token);
      continue;
    }
    const eq = token.indexOf('=');
    const name = token.slice(2, eq === -1 ? undefined : eq);
    const kind = spec[name];
    if (!kind) {
      throw new AgentError('INVALID_INPUT', `${options.command}: unknown option --${name} (see agent-tty ${options.command} --help)`, { option: `--${name}` });
    }
    if (kind === 'boolean') {
      if (eq !== -1) throw new AgentError('INVALID_INPUT', `${options.command}: --${name} takes no value`, { option: `--${name}` });
      values[name] = true;
      continue;
    }
    let value: string;
    if (eq !== -1) value = token.slice(eq + 1);
    else {
      if (i + 1 >= argv.length) throw new AgentError('INVALID_INPUT', `${options.command}: --${name} needs a value`, { option: `--${name}` });
      value = argv[++i];
    }
    if (kind === 'multi') values[name] = [...((values[name] as string[] | undefined) ?? []), value];
    else values[name] = value;
  }
  return { values, positionals };
}

export function str(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === 'string' ? v : undefined;
}

export function flag(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true;
}

export function list(args: ParsedArgs, name: string): string[] {
  const v = args.values[name];
  return Array.isArray(v) ? v : [];
}

/** A whole number option in [min, max]; `code` names the error (INVALID_DIMENSIONS, INVALID_DURATION...). */
export function intOption(args: ParsedArgs, name: string, code: 'INVALID_DIMENSIONS' | 'INVALID_DURATION' | 'INVALID_INPUT', min: number, max = 2_147_483_647): number | undefined {
  const raw = str(args, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new AgentError(code, `--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`, { option: `--${name}`, value: raw });
  }
  return n;
}

export function sessionArg(args: ParsedArgs, command: string): string {
  const id = args.positionals[0];
  if (!id) throw new AgentError('INVALID_INPUT', `${command}: give a session id (see agent-tty list)`, {});
  return id;
}
