#!/usr/bin/env node
import { TapedeckError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { terminalSafe } from '../core/terminal-safe.js';

/**
 * The tapedeck CLI: dispatches to one module per command. Every command is a
 * function from argv to an exit code; errors a user can act on are
 * TapedeckErrors, printed as one line that names file:line. No stack traces.
 */
type Command = (argv: string[]) => Promise<number>;

const commands: Record<string, { summary: string; load: () => Promise<Command> }> = {
  record: { summary: 'record a protocol tape (.ndjson) or a terminal tape (.cast)', load: async () => (await import('./commands/record.js')).run },
  replay: { summary: 'replay tapes against a fresh process and report drift', load: async () => (await import('./commands/replay.js')).run },
  report: { summary: 'replay tapes and write a self-contained HTML report of the run', load: async () => (await import('./commands/report.js')).run },
  serve: { summary: 'answer a client from a protocol tape (a stand-in server)', load: async () => (await import('./commands/serve.js')).run },
  snapshot: { summary: 'print the screen of a terminal tape at a marker or time', load: async () => (await import('./commands/snapshot.js')).run },
  screenshot: { summary: 'render the screen of a terminal tape to a PNG', load: async () => (await import('./commands/screenshot.js')).run },
  doctor: { summary: 'check Chromium, fonts, PTYs and the home directory', load: async () => (await import('./commands/doctor.js')).run },
  export: { summary: 'convert a cast: asciicast v2/v3, a self-contained HTML player, or a WebM video', load: async () => (await import('./commands/export.js')).run },
  review: { summary: 'list pending goldens (.new) with their diffs; accept or reject them', load: async () => (await import('./commands/review.js')).run },
  fix: { summary: 'apply the fixes of drift envelopes read from stdin (fix --apply --from-stdin)', load: async () => (await import('./commands/fix.js')).run },
  explain: { summary: 'explain a TDxxxx diagnostic code', load: async () => (await import('./commands/explain.js')).run },
  session: { summary: 'drive live terminal sessions (the agent-tty CLI: create, type, wait, snapshot, ...)', load: async () => (argv) => import('./agent-tty/main.js').then((m) => m.runAgentTty(argv, 'tapedeck session')) },
  version: { summary: 'print the version', load: async () => (await import('./commands/version.js')).run },
};

export function usage(): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length));
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `usage: tapedeck <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun tapedeck <command> --help for a command's options.`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return name ? ExitCode.ok : ExitCode.usage;
  }
  if (name === '--version' || name === '-V') return (await commands.version.load())([]);
  const command = commands[name];
  if (!command) {
    process.stderr.write(`tapedeck: unknown command ${JSON.stringify(name)}\n\n${usage()}\n`);
    return ExitCode.usage;
  }
  return (await command.load())(rest);
}

// On Ctrl+C or a kill, exit through process.exit so the 'exit' hooks end the
// terminals and servers this run started (they run in their own process groups).
// Commands that handle a signal themselves (the recorders forward it) take precedence.
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
  const onSignal = () => {
    if (process.listenerCount(signal) === 1) process.exit(code);
  };
  process.on(signal, onSignal);
}

/**
 * Exits once stdout and stderr have handed every byte to the OS. process.exit()
 * drops what is still queued for a pipe whose reader is slow (a 1 MB --json
 * through `| (sleep 1; cat)` was cut at 64 KiB), so wait for both write queues.
 */
export function exitWhenFlushed(code: number): void {
  process.exitCode = code;
  let waiting = 2;
  const done = () => {
    if (--waiting === 0) process.exit(code);
  };
  for (const stream of [process.stdout, process.stderr]) {
    let flushed = false;
    const once = () => {
      if (!flushed) (flushed = true), done();
    };
    // A reader that went away (EPIPE) has nothing left to receive.
    stream.once('error', once);
    if (stream.destroyed || !stream.writable) once();
    else stream.write('', once);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    // Exit explicitly: a paused stdin or a finished child's pipes must not keep the CLI alive.
    exitWhenFlushed(code);
  },
  (err: unknown) => {
    if (err instanceof TapedeckError) {
      process.stderr.write(`tapedeck: ${terminalSafe(err.describe())}\n`); // messages may quote a tape
      exitWhenFlushed(err.exitCode);
    } else {
      const e = err as Error;
      process.stderr.write(`tapedeck: internal error: ${terminalSafe(e?.message ?? String(err))}\n`);
      if (process.env.TAPEDECK_DEBUG) process.stderr.write(`${e?.stack}\n`);
      exitWhenFlushed(ExitCode.usage);
    }
  },
);
