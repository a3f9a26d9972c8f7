#!/usr/bin/env node
import { jsonForTerminal } from '../../core/text/terminal-safe.js';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errorEnvelope, resultEnvelope } from '../../core/diagnostics/envelope.js';
import { GLOBAL_OPTIONS, parseArgv, str, flag, type ParsedArgs } from './argv.js';
import type { CommandDef } from './command.js';
import { resolveContext, type AgentContext } from './config.js';
import { AgentError, AgentExit, toAgentError } from '../../agent-tty/errors.js';
import { processIO, type CliIO, type CliOutput } from '../io.js';

/**
 * agent-tty: seed 002's v1 CLI over tapedeck's terminal library. Every command
 * prints the §1.3 envelope with --json (failures too, on stdout) and ends with
 * a §1.4 exit code. `tapedeck session ...` runs this same entry point.
 */
type Loader = () => Promise<CommandDef>;

const COMMANDS: Record<string, Loader> = {
  create: async () => (await import('./commands/create.js')).create,
  list: async () => (await import('./commands/sessions.js')).list,
  inspect: async () => (await import('./commands/sessions.js')).inspect,
  type: async () => (await import('./commands/input.js')).type,
  paste: async () => (await import('./commands/input.js')).paste,
  'send-keys': async () => (await import('./commands/input.js')).sendKeys,
  resize: async () => (await import('./commands/input.js')).resize,
  signal: async () => (await import('./commands/input.js')).signal,
  mouse: async () => (await import('./commands/mouse.js')).mouse,
  wait: async () => (await import('./commands/wait.js')).wait,
  snapshot: async () => (await import('./commands/capture.js')).snapshot,
  screenshot: async () => (await import('./commands/capture.js')).screenshot,
  'record export': async () => (await import('./commands/export.js')).recordExport,
  destroy: async () => (await import('./commands/lifecycle.js')).destroy,
  gc: async () => (await import('./commands/lifecycle.js')).gc,
  doctor: async () => (await import('./commands/doctor.js')).doctor,
  version: async () => (await import('./commands/version.js')).version,
};

const GLOBAL_HELP = `Global flags: --json  --home DIR  --log-level error|warn|info|debug|trace  --timeout-ms N
              --profile reference-dark|reference-light  --no-color
Environment: AGENT_TTY_HOME, AGENT_TTY_LOG_LEVEL, AGENT_TTY_PROFILE, AGENT_TTY_TIMEOUT_MS,
  AGENT_TTY_BROWSER_PATH, AGENT_TTY_KEEP_TEMP (TAPEDECK_* work too); config: HOME/config.json.
Exit codes: 0 ok, 1 failure, 2 usage, 3 session not found, 4 not running, 5 wait timed out,
  6 renderer unavailable, 7 export failed, 8 environment.`;

export function usage(): string {
  return `usage: agent-tty <command> [options] [--json]

commands: ${Object.keys(COMMANDS).join(', ')}
Run agent-tty <command> --help for a command's options.

${GLOBAL_HELP}`;
}

/** Finds the command words among leading global flags: `agent-tty --json record export ID`. */
function splitCommand(argv: string[]): { name: string | undefined; rest: string[] } {
  const before: string[] = [];
  let i = 0;
  while (i < argv.length && argv[i].startsWith('-')) {
    const flagName = argv[i].slice(2);
    before.push(argv[i]);
    if (GLOBAL_OPTIONS[flagName] === 'string' && i + 1 < argv.length) before.push(argv[++i]);
    i++;
  }
  const word = argv[i];
  if (word === 'record' && argv[i + 1] === 'export') return { name: 'record export', rest: [...before, ...argv.slice(i + 2)] };
  return { name: word, rest: [...before, ...argv.slice(i + 1)] };
}

function write(stream: CliOutput, text: string): void {
  if (text) stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * One agent-tty call: argv in, an exit code out, everything written to `io`
 * (the process's streams for the bin, buffers for a caller in the same process).
 * It never exits the process, so tapedeck's `session` command and tests call it directly.
 */
export async function runAgentTty(argv: string[], binName = 'agent-tty', io: CliIO = processIO()): Promise<number> {
  const wantsJson = argv.includes('--json');
  const { name, rest } = splitCommand(argv);
  let command = name ?? 'help';
  try {
    if (!name || name === 'help') {
      if (argv.includes('--help') || argv.includes('-h') || name === 'help') {
        write(io.stdout, usage().replaceAll('agent-tty', binName));
        return AgentExit.ok;
      }
      throw new AgentError('INVALID_INPUT', `give a command (${Object.keys(COMMANDS).join(', ')})`, {});
    }
    const load = COMMANDS[name];
    if (!load) throw new AgentError('INVALID_INPUT', `unknown command ${JSON.stringify(name)} (commands: ${Object.keys(COMMANDS).join(', ')})`, { command: name });
    const def = await load();
    command = def.name;
    const args: ParsedArgs = parseArgv(rest, { ...GLOBAL_OPTIONS, ...def.options }, { command: def.name, restIsCommand: def.restIsCommand });
    if (def.maxPositionals !== undefined && args.positionals.length > def.maxPositionals) {
      throw new AgentError('INVALID_INPUT', `${def.name}: unexpected argument ${JSON.stringify(args.positionals[def.maxPositionals])} (usage: ${def.usage.split('\n')[0]})`, { arguments: args.positionals });
    }
    if (flag(args, 'help')) {
      write(io.stdout, `usage: ${def.usage.replaceAll('agent-tty', binName)}\n\n${def.summary}\n\n${GLOBAL_HELP}`);
      return AgentExit.ok;
    }
    const ctx: AgentContext = resolveContext({
      json: flag(args, 'json'),
      home: str(args, 'home'),
      logLevel: str(args, 'log-level'),
      timeoutMs: str(args, 'timeout-ms'),
      profile: str(args, 'profile'),
      noColor: flag(args, 'no-color'),
    }, io);
    const outcome = await def.run(ctx, args);
    if (ctx.json) write(io.stdout, jsonForTerminal(resultEnvelope(def.name, outcome.result)));
    else write(io.stdout, outcome.human);
    return outcome.exitCode ?? AgentExit.ok;
  } catch (err) {
    const error = toAgentError(err);
    if (wantsJson) write(io.stdout, jsonForTerminal(errorEnvelope(command, error.body())));
    else write(io.stderr, `${binName}: ${error.message}`);
    if (io.env.AGENT_TTY_DEBUG && error.code === 'INTERNAL_ERROR') write(io.stderr, String((err as Error)?.stack));
    return error.exitCode;
  }
}

// Run only as the bin (tapedeck's `session` command imports runAgentTty instead).
function isEntryPoint(): boolean {
  try {
    return Boolean(process.argv[1]) && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}
if (isEntryPoint()) {
  // Exit only once stdout is flushed: a pipe takes big envelopes (cells) asynchronously.
  runAgentTty(process.argv.slice(2)).then((code) => process.stdout.write('', () => process.exit(code)));
}
