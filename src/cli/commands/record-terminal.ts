import { parseIntOption, parseOptions } from '../args.js';
import { usageError } from '../../core/errors.js';
import { resultEnvelope } from '../../core/envelope.js';
import { MARKER_KEY, recordTerminal, type RecordResult } from '../../recorder/terminal.js';
import type { Terminal } from '../../session/terminal.js';

const HELP = `usage: tapedeck record --out FILE.cast [--rows R --cols C] [--title T] [--format v3|v2] [--json] -- CMD ARGS...

Records CMD in a pseudo-terminal into an asciicast tape (v3 by default).
Interactive when stdin is a terminal: keys go to CMD, the tape follows your
terminal's size, ctrl+] drops a marker (marker-1, marker-2, ...), and the
recording ends when CMD exits. Otherwise CMD runs to its exit; piped stdin is
forwarded to it (end of input sends ctrl+D). Exits with CMD's exit code.

  --redact-env NAME    store NAME's value as {{tapedeck.env.NAME}} in the output, the
                       input and the header (repeatable); replay restores it`;

/** `tapedeck record --out X.cast -- CMD...` (called by record.ts for terminal tapes). */
export async function runTerminalRecord(own: string[], command: string[]): Promise<number> {
  const { values, positionals } = parseOptions('record', own, {
    out: { type: 'string' },
    rows: { type: 'string' },
    cols: { type: 'string' },
    title: { type: 'string' },
    format: { type: 'string' },
    kind: { type: 'string' },
    json: { type: 'boolean' },
    'redact-env': { type: 'string', multiple: true, default: [] },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (positionals.length) throw usageError(`record: unexpected argument ${JSON.stringify(positionals[0])} (put the command after --)`);
  if (!values.out) throw usageError('record: --out FILE.cast is required');
  if (values.kind !== undefined && values.kind !== 'terminal') throw usageError(`record: --kind ${values.kind} is not a terminal tape`);
  const format = values.format ?? 'v3';
  if (format !== 'v2' && format !== 'v3') throw usageError(`record: --format expects v2 or v3, got ${JSON.stringify(format)}`);
  if (command.length === 0 || command[0] === '') throw usageError('record: no command given (tapedeck record --out FILE.cast -- CMD ARGS...)');
  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const rows = parseIntOption('rows', values.rows, interactive ? process.stdout.rows || 24 : 24, 1);
  const cols = parseIntOption('cols', values.cols, interactive ? process.stdout.columns || 80 : 80, 1);
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
  });
  const release = interactive ? connectInteractive(terminal, followSize) : connectPiped(terminal);
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
    process.stdout.write(`${JSON.stringify(resultEnvelope('record', { kind: 'terminal', ...result }))}\n`);
  } else if (!interactive) {
    process.stderr.write(`tapedeck: recorded ${command[0]} to ${values.out} (exit ${result.signal ?? result.exitCode})\n`);
  }
  return result.processExitCode;
}

/** Raw-mode passthrough between the real terminal and the recorded one. */
function connectInteractive(terminal: Terminal, followSize: boolean): () => void {
  const stdin = process.stdin;
  const stdout = process.stdout;
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
function connectPiped(terminal: Terminal): () => void {
  const stdin = process.stdin;
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
