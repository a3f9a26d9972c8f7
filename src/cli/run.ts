import { TapedeckError } from '../core/diagnostics/errors.js';
import { ExitCode } from '../core/diagnostics/exit-codes.js';
import { terminalSafe } from '../core/text/terminal-safe.js';
import { setRunningCommand } from '../core/lazy-package.js';
import type { Command } from './command.js';
import { processIO, type CliIO } from './io.js';

/**
 * The tapedeck CLI as a function: main(argv, io) dispatches to one command
 * module (loaded on demand, so a protocol-only command never loads the terminal
 * or render stack) and turns what it throws into an exit code and one line on
 * io.stderr. It never exits the process and leaves no listeners behind, so tests
 * call it in-process; cli/main.ts is the bin around it. What a command opens for
 * later calls (the renderer's browser page) stays open: the bin closes it through
 * plumbing/process/shutdown.ts, an embedding process with closeRenderer().
 */
type Runner = (argv: string[], io: CliIO) => Promise<number>;
const of = (load: () => Promise<{ command: Command }>): (() => Promise<Runner>) => async () => {
  const { command } = await load();
  return (argv, io) => command.run(argv, io);
};

export const COMMANDS: Record<string, { summary: string; load: () => Promise<Runner> }> = {
  record: { summary: 'record a protocol tape (.ndjson) or a terminal tape (.cast)', load: of(() => import('./commands/record.js')) },
  replay: { summary: 'replay tapes against a fresh process and report drift', load: of(() => import('./commands/replay.js')) },
  report: { summary: 'replay tapes and write a self-contained HTML report of the run', load: of(() => import('./commands/report.js')) },
  serve: { summary: 'answer a client from a protocol tape (a stand-in server)', load: of(() => import('./commands/serve.js')) },
  vhs: { summary: 'run charmbracelet/vhs .tape scripts and check their .txt/.ascii/.cast outputs as goldens', load: of(() => import('./commands/vhs.js')) },
  snapshot: { summary: 'print the screen of a terminal tape at a marker or time', load: of(() => import('./commands/snapshot.js')) },
  screenshot: { summary: 'render the screen of a terminal tape to a PNG (or an SVG)', load: of(() => import('./commands/screenshot.js')) },
  doctor: { summary: 'check Chromium, fonts, PTYs and the home directory', load: of(() => import('./commands/doctor.js')) },
  export: { summary: 'convert a cast: asciicast v2/v3, a self-contained HTML player, an SVG screen, a GIF or a WebM video', load: of(() => import('./commands/export.js')) },
  init: { summary: 'set up a project: config, goldens/, an example test, vitest.config.ts and a GitHub workflow', load: of(() => import('./commands/init.js')) },
  review: { summary: 'list pending goldens (.new) with their diffs; accept or reject them', load: of(() => import('./commands/review.js')) },
  fix: { summary: 'apply the fixes of drift envelopes read from stdin (fix --apply --from-stdin)', load: of(() => import('./commands/fix.js')) },
  explain: { summary: 'explain a TDxxxx diagnostic code', load: of(() => import('./commands/explain.js')) },
  agent: { summary: "tapedeck's own operations as an NDJSON agent (seed 000's wire format)", load: of(() => import('./commands/agent.js')) },
  // The agent-tty CLI keeps seed 002's own grammar and envelopes.
  session: { summary: 'drive live terminal sessions (the agent-tty CLI: create, type, wait, snapshot, ...)', load: async () => (argv, io) => import('./agent-tty/main.js').then((m) => m.runAgentTty(argv, 'tapedeck session', io)) },
  version: { summary: 'print the version', load: of(() => import('./commands/version.js')) },
};

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `usage: tapedeck <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun tapedeck <command> --help for a command's options.`;
}

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (err) {
    return reportError(err, io);
  }
}

async function dispatch(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(`${usage()}\n`);
    return name ? ExitCode.ok : ExitCode.usage;
  }
  if (name === '--version' || name === '-V') return (await COMMANDS.version.load())([], io);
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    io.stderr.write(`tapedeck: unknown command ${JSON.stringify(name)}\n\n${usage()}\n`);
    return ExitCode.usage;
  }
  setRunningCommand(name); // a missing optional package's message names the command
  return (await command.load())(rest, io);
}

/** A TapedeckError is its code's exit code (core/diagnostics/error-codes.ts) and one line; anything else is a bug: exit 2, no stack. */
function reportError(err: unknown, io: CliIO): number {
  if (err instanceof TapedeckError) {
    io.stderr.write(`tapedeck: ${terminalSafe(err.describe())}\n`); // messages may quote a tape
    return err.exitCode;
  }
  const e = err as Error;
  io.stderr.write(`tapedeck: internal error: ${terminalSafe(e?.message ?? String(err))}\n`);
  if (io.env.TAPEDECK_DEBUG) io.stderr.write(`${e?.stack}\n`);
  return ExitCode.usage;
}
