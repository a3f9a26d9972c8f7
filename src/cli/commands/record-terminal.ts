import { jsonForTerminal } from '../../core/text/terminal-safe.js';
import type { ReadStream, WriteStream } from 'node:tty';
import { Readable } from 'node:stream';
import { parseIntOption } from '../args.js';
import type { CliIO } from '../io.js';
import type { RecordContext } from './record-options.js';
import { usageError } from '../../core/diagnostics/errors.js';
import { resultEnvelope } from '../../core/diagnostics/envelope.js';
import { MARKER_KEY, recordTerminal, type RecordResult } from '../../recorder/terminal/record.js';
import type { Terminal } from '../../session/terminal.js';

/** `tapedeck record --out X.cast -- CMD...` (record.ts parsed the options and picked this recorder). */
export async function runTerminalRecord({ values, command, io }: RecordContext): Promise<number> {
  if (!values.out) throw usageError('record: --out FILE.cast is required');
  const format = values.format ?? 'v3';
  if (format !== 'v2' && format !== 'v3') throw usageError(`record: --format expects v2 or v3, got ${JSON.stringify(format)}`);
  if (command.length === 0 || command[0] === '') throw usageError('record: no command given (tapedeck record --out FILE.cast -- CMD ARGS...)');
  const interactive = io.stdin?.isTTY === true && io.stdout.isTTY === true;
  const rows = parseIntOption('rows', values.rows, interactive ? io.stdout.rows || 24 : 24, 1);
  const cols = parseIntOption('cols', values.cols, interactive ? io.stdout.columns || 80 : 80, 1);
  const followSize = interactive && values.rows === undefined && values.cols === undefined;

  const { terminal, done } = await recordTerminal({
    out: values.out,
    command: command[0],
    args: command.slice(1),
    format,
    rows,
    cols,
    title: values.title,
    answerQueries: !interactive,
    redactEnv: values['redact-env'],
    cwd: io.cwd,
    baseEnv: io.env,
  });
  const release = interactive ? connectInteractive(terminal, followSize, io) : connectPiped(terminal, io.stdin);
  const stopOnSignal = () => void terminal.kill();
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  // Interactive ctrl+C reaches the child as a byte; these come from outside (kill, CI cancel).
  for (const s of signals) process.on(s, stopOnSignal);
  let result: RecordResult;
  try {
    result = await done;
  } finally {
    release();
    for (const s of signals) process.off(s, stopOnSignal);
  }
  if (values.json) {
    io.stdout.write(`${jsonForTerminal(resultEnvelope('record', { kind: 'terminal', ...result }))}\n`);
  } else if (!interactive) {
    io.stderr.write(`tapedeck: recorded ${command[0]} to ${values.out} (exit ${result.signal ?? result.exitCode})\n`);
  }
  return result.processExitCode;
}

/** Raw-mode passthrough between the real terminal and the recorded one. */
function connectInteractive(terminal: Terminal, followSize: boolean, io: CliIO): () => void {
  const stdin = io.stdin as ReadStream;
  const stdout = io.stdout as WriteStream;
  let markers = 0;
  const unsubscribe = terminal.onEvent((e) => {
    if (e.type === 'output') stdout.write(e.data);
  });
  const onInput = (chunk: Buffer) => {
    if (!terminal.running) return;
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      if (chunk[i] !== MARKER_KEY) continue;
      if (i > start) terminal.write(chunk.subarray(start, i));
      terminal.marker(`marker-${++markers}`);
      start = i + 1;
    }
    if (start < chunk.length) terminal.write(chunk.subarray(start));
  };
  const onResize = () => {
    if (terminal.running) terminal.resize(stdout.rows || terminal.rows, stdout.columns || terminal.cols);
  };
  stdin.setRawMode(true);
  stdin.on('data', onInput);
  stdin.resume();
  if (followSize) stdout.on('resize', onResize);
  return () => {
    unsubscribe();
    stdin.off('data', onInput);
    stdout.off('resize', onResize);
    stdin.setRawMode(false);
    stdin.pause();
  };
}

/** Forwards piped stdin (not a terminal) to the program; EOF becomes ctrl+D. */
function connectPiped(terminal: Terminal, input: CliIO['stdin']): () => void {
  // No input at all is an input that has ended.
  const stdin = (input as Readable | undefined) ?? Readable.from([]);
  const onData = (chunk: Buffer) => {
    if (terminal.running) terminal.write(chunk);
  };
  const onEnd = () => {
    if (terminal.running) terminal.write('\x04');
  };
  stdin.on('data', onData);
  stdin.on('end', onEnd);
  stdin.on('error', () => undefined);
  return () => {
    stdin.off('data', onData);
    stdin.off('end', onEnd);
    stdin.pause();
    stdin.destroy();
  };
}
