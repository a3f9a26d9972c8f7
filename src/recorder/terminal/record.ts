import { dirname, relative, resolve } from 'node:path';
import { signalExitCode } from '../../plumbing/process/exit.js';
import { CastWriter } from '../../tape/asciicast/write.js';
import type { CastFormat } from '../../tape/asciicast/events.js';
import { spawnTerminal, type Terminal, type TerminalExit } from '../../session/terminal.js';
import { attachCastWriter } from './cast.js';

export interface RecordTerminalOptions {
  /** The .cast file to write (atomically: it appears only when the recording ends). */
  out: string;
  command: string;
  args?: string[];
  format?: CastFormat;
  rows?: number;
  cols?: number;
  title?: string;
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** What the program's environment starts from and redacted values come from; default process.env. */
  baseEnv?: NodeJS.ProcessEnv;
  /**
   * Let the headless screen answer the program's terminal queries (default true).
   * Off for interactive recording: the real terminal answers, and two answers would reach the program.
   */
  answerQueries?: boolean;
  /** Variables stored as {{tapedeck.env.NAME}} in the cast (output, input, header). */
  redactEnv?: readonly string[];
  /** Called with the live terminal right after spawn (drive it, add markers...). */
  drive?: (terminal: Terminal) => void | Promise<void>;
}

export interface RecordResult extends TerminalExit {
  out: string;
  format: CastFormat;
  /** Exit code for a CLI: the child's, or 128 + signal number when a signal ended it. */
  processExitCode: number;
  durationSeconds: number;
}

/** Byte that drops a marker in interactive recording: ctrl+] (0x1d). */
export const MARKER_KEY = 0x1d;

export function processExitCode(exit: TerminalExit): number {
  return exit.signal ? signalExitCode(exit.signal as NodeJS.Signals) : exit.exitCode;
}

/**
 * Records a terminal program into a cast until it exits. The cast is streamed
 * to a temporary file and renamed into place at the end, so a failure never
 * leaves a half-written tape under the target name.
 */
export async function recordTerminal(options: RecordTerminalOptions): Promise<{ terminal: Terminal; done: Promise<RecordResult> }> {
  const rows = options.rows ?? 24;
  const cols = options.cols ?? 80;
  const args = options.args ?? [];
  const format = options.format ?? 'v3';
  const cwd = resolve(options.cwd ?? process.cwd());
  const baseEnv = options.baseEnv ?? process.env;
  const writer = new CastWriter(options.out, {
    format,
    rows,
    cols,
    termType: 'xterm-256color',
    title: options.title,
    argv: [options.command, ...args],
    redactEnv: options.redactEnv,
    redactFrom: { ...baseEnv, ...options.env },
    // Replays run here too: a tape of `bash ./script.sh` needs its directory.
    cwd,
    cwdFromTape: relative(dirname(resolve(options.out)), cwd) || '.',
    // What asciinema records: the user's shell (TERM goes in term.type, or env.TERM in v2).
    ...(baseEnv.SHELL ? { env: { SHELL: baseEnv.SHELL } } : {}),
  });
  let terminal: Terminal;
  try {
    terminal = spawnTerminal(options.command, args, { rows, cols, cwd: options.cwd, env: options.env, baseEnv: options.baseEnv, retainEvents: false, answerQueries: options.answerQueries, lazyScreen: true });
  } catch (err) {
    writer.abort();
    throw err;
  }
  const detach = attachCastWriter(terminal, writer);
  const done = (async (): Promise<RecordResult> => {
    try {
      if (options.drive) await options.drive(terminal);
      const exit = await terminal.exited;
      const durationSeconds = terminal.events.now() / 1000;
      detach();
      // The tape's fsync waits on the disk while the terminal's session is ended (a scan of /proc).
      const settled = await Promise.allSettled([writer.closeAsync(), terminal.dispose()]);
      for (const s of settled) if (s.status === 'rejected') throw s.reason;
      return { ...exit, out: options.out, format, processExitCode: processExitCode(exit), durationSeconds };
    } catch (err) {
      detach();
      writer.abort();
      throw err;
    } finally {
      await terminal.dispose();
    }
  })();
  return { terminal, done };
}
