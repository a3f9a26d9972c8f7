import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { TapedeckError, usageError } from '../core/diagnostics/errors.js';
import { parseOptions, splitCommand } from './args.js';
import { formatHelp } from './help.js';
import type { CliIO } from './io.js';

/**
 * One definition per CLI command (name, help, options, run): argv is parsed
 * once, strictly, from the options declared here, and the help is generated
 * from the same declarations, so every command has one help style and no
 * command finds a flag by hand.
 */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  default?: string | boolean | string[];
  /** The value's placeholder in the help (`--out FILE`). */
  arg?: string;
  help: string;
  /** The help section it is listed under (default "options"). */
  section?: string;
  /** A file or folder: relative to the run's folder (`io.cwd`). */
  path?: boolean;
}

export type OptionSpecs = Record<string, OptionSpec>;

type OptionValue<S extends OptionSpec> = S['type'] extends 'boolean'
  ? S extends { multiple: true } ? boolean[] : boolean
  : S extends { multiple: true } ? string[] : string;

export type OptionValues<O extends OptionSpecs> = {
  [K in keyof O]: O[K] extends { default: unknown } ? OptionValue<O[K]> : OptionValue<O[K]> | undefined;
};

export interface CommandContext<O extends OptionSpecs> {
  values: OptionValues<O>;
  positionals: string[];
  /** What follows `--` (commands with `passthrough`), untouched. */
  command: string[];
  /** The command's own arguments as given (before any `--`), for a command whose positionals' order matters. */
  argv: string[];
  io: CliIO;
}

export interface CommandDefinition<O extends OptionSpecs> {
  name: string;
  summary: string;
  /** Usage lines after `tapedeck NAME`. */
  usage: string[];
  /** Paragraphs after the usage lines, as written. */
  description?: string;
  options: O;
  /** Text printed after a section's options, by section title. */
  sectionNotes?: Record<string, string>;
  /** Text printed last. */
  epilogue?: string;
  /** Allowed positional count; `message` (after "NAME: ") when it is outside. */
  positionals?: { min?: number; max?: number; message: string | ((given: string[]) => string) };
  /** `-- CMD ARGS...` is the command under test, not parsed. */
  passthrough?: boolean;
  /** The positionals are files (or globs): relative to the run's folder (`io.cwd`). */
  pathPositionals?: boolean;
  run(context: CommandContext<O>): Promise<number>;
  /** Sees any error (parsing too) before it reaches main(), e.g. to print it as a JSON envelope. */
  onError?(err: unknown, argv: string[], io: CliIO): void;
}

export interface Command<O extends OptionSpecs = OptionSpecs> {
  readonly definition: CommandDefinition<O>;
  help(): string;
  /** Parses argv (everything after the command name) and runs the command. */
  run(argv: string[], io: CliIO): Promise<number>;
}

const HELP_OPTION = { help: { type: 'boolean', short: 'h', help: 'print this help' } } as const satisfies OptionSpecs;

export function defineCommand<const O extends OptionSpecs>(definition: CommandDefinition<O>): Command<O> {
  const specs: OptionSpecs = { ...definition.options, ...HELP_OPTION };
  const config = Object.fromEntries(
    Object.entries(specs).map(([name, s]) => [name, { type: s.type, ...(s.short ? { short: s.short } : {}), ...(s.multiple ? { multiple: true } : {}), ...(s.default !== undefined ? { default: s.default } : {}) }]),
  ) as Parameters<typeof parseOptions>[2];
  const help = () => formatHelp(definition, specs);

  const parse = (argv: string[], io: CliIO): CommandContext<O> => {
    const { own, command } = definition.passthrough ? splitCommand(argv) : { own: argv, command: [] };
    const { values, positionals } = parseOptions(definition.name, own, config);
    const bounds = definition.positionals;
    if (bounds && (positionals.length < (bounds.min ?? 0) || positionals.length > (bounds.max ?? Infinity))) {
      const message = typeof bounds.message === 'string' ? bounds.message : bounds.message(positionals);
      throw usageError(`${definition.name}: ${message}`);
    }
    const here = inFolder(io.cwd);
    for (const [name, spec] of Object.entries(specs)) {
      const value = values[name];
      if (!spec.path || value === undefined) continue;
      values[name] = Array.isArray(value) ? value.map((v) => here(String(v))) : here(String(value));
    }
    return { values: values as OptionValues<O>, positionals: definition.pathPositionals ? positionals.map(here) : positionals, command, argv: own, io };
  };

  return {
    definition,
    help,
    async run(argv, io) {
      try {
        // --help wins over any other mistake on the line, as a user asking for help expects.
        if (asksForHelp(definition.passthrough ? splitCommand(argv).own : argv, config)) {
          io.stdout.write(help());
          return 0;
        }
        return await definition.run(parse(argv, io));
      } catch (err) {
        if (definition.onError) definition.onError(err, argv, io);
        // Under --json a failure is an envelope on stdout too (seed 002 §1.3), as the agent-tty bin prints.
        else if (wantsJson(argv)) io.stdout.write(`${JSON.stringify(await failureEnvelope(definition.name, err))}\n`);
        throw err;
      }
    },
  };
}

/** The command's own options ask for JSON: --json, or snapshot's --format structured (json). */
function wantsJson(argv: string[]): boolean {
  const own = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  return own.includes('--json') || own.some((a, i) => (a === '--format' && /^(structured|json)$/.test(own[i + 1] ?? '')) || /^--format=(structured|json)$/.test(a));
}

async function failureEnvelope(command: string, err: unknown): Promise<Record<string, unknown>> {
  const { errorEnvelope } = await import('../core/diagnostics/envelope.js'); // only on this path: a start-up loads none of it
  if (err instanceof TapedeckError) {
    const details = { ...(err.details ?? {}), ...(err.location ? { location: err.location } : {}) };
    return errorEnvelope(command, { code: err.code, message: err.describe(), details });
  }
  return errorEnvelope(command, { code: 'INTERNAL_ERROR', message: `internal error: ${(err as Error)?.message ?? String(err)}` });
}

/**
 * A user's path as this process must open it: relative to `cwd`, the folder the run is for.
 * The bin's cwd is this process's, so its paths stay as typed (and read back as typed in messages);
 * main(argv, io) with another cwd gets them resolved.
 */
function inFolder(cwd: string): (path: string) => string {
  return (path) => (cwd === process.cwd() || isAbsolute(path) ? path : resolve(cwd, path));
}

/** Whether -h/--help is given as an option (not as the value of another option). */
function asksForHelp(argv: string[], config: Parameters<typeof parseOptions>[2]): boolean {
  const { tokens } = parseArgs({ args: argv, options: config, strict: false, allowPositionals: true, tokens: true });
  return tokens.some((t) => t.kind === 'option' && t.name === 'help');
}
