// What `tapedeck record` runs once its options are parsed: loaded only then (record.ts holds the definition and
// help); each recorder (stdio tap, network proxy, terminal) loads when it is the one picked.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Boundary, pairByBoundary, parseBoundary } from '../../core/framing/boundary.js';
import { usageError } from '../../core/diagnostics/errors.js';
import { ExitCode } from '../../core/diagnostics/exit-codes.js';
import { tapeKind } from '../../tape/kind.js';
import { Readable, type Writable } from 'node:stream';
import { parseIntOption } from '../args.js';
import { listenAddress } from '../listen-aliases.js';
import { NETWORK, PROTOCOL, recordOptions, TERMINAL, type RecordContext } from './record-options.js';

/** The kind of tape (and, for protocol tapes, the transport) picks the recorder; options of another kind are refused. */
export async function record(context: RecordContext): Promise<number> {
  const { values, command } = context;
  if (!values.out) throw usageError('record: --out FILE is required');
  const kind = values.kind ?? tapeKind(values.out);
  if (kind !== 'protocol' && kind !== 'terminal') {
    throw usageError(`record: cannot tell the tape kind of ${JSON.stringify(values.out)}: name it .ndjson/.jsonl or .cast, or pass --kind protocol|terminal`);
  }
  const network = values.transport !== undefined && values.transport !== 'stdio';
  if (network && kind !== 'protocol') throw usageError('record: --transport applies to protocol tapes (.ndjson/.jsonl)');
  // An option of another kind's section (the definition says which) is a mistake, not something to ignore.
  const refuse = (section: string, where: string) => {
    const option = Object.entries(recordOptions).find(([name, spec]) => 'section' in spec && spec.section === section && values[name as keyof typeof values] !== undefined);
    if (option) throw usageError(`record: --${option[0]} applies to ${where}`);
  };
  if (kind === 'terminal') {
    refuse(PROTOCOL, 'protocol tapes (.ndjson/.jsonl)');
    refuse(NETWORK, 'protocol tapes (.ndjson/.jsonl)');
  } else {
    refuse(TERMINAL, 'terminal tapes (.cast)');
    if (network && values['grace-ms'] !== undefined) throw usageError('record: --grace-ms applies to --transport stdio');
    if (network && values['single-shot']) throw usageError('record: --single-shot applies to --transport stdio (seed 000 has no single-shot mode over HTTP or a socket)');
    if (!network) (['listen', 'port', 'socket', 'upstream', 'max-body'] as const).forEach((k) => {
      if (values[k] !== undefined) throw usageError(`record: --${k} applies to --transport http or unix`);
    });
  }
  if (network) return recordTransportCommand(context);
  if (command.length === 0) throw usageError('record: give the command to record after --, e.g. tapedeck record --out tape.ndjson -- node server.js');
  if (kind === 'terminal') {
    const { runTerminalRecord } = await import('./record-terminal.js');
    return runTerminalRecord(context);
  }
  return recordProtocolCommand(context);
}

async function recordProtocolCommand({ values, command, io }: RecordContext): Promise<number> {
  const graceMs = parseIntOption('grace-ms', values['grace-ms'], 2000, 0);
  const dir = command.some((a) => a.includes('{{tapedeck.tmpdir}}')) ? mkdtempSync(join(tmpdir(), 'tapedeck-scratch-')) : undefined;
  const argv = dir ? command.map((a) => a.split('{{tapedeck.tmpdir}}').join(dir)) : command;
  // Seed 000's CI path, `CMD --single-shot < req.json`: one request, the whole of stdin (detected when it is one JSON value over several lines).
  const { detectSingleShot, readAll, recordSingleShot } = await import('../../recorder/stdio/single-shot.js');
  const source = (io.stdin as Readable | undefined) ?? Readable.from([]);
  const seen = values['single-shot'] ? { body: await readAll(source) } : await detectSingleShot(source);
  if ('body' in seen) {
    const shot = await recordSingleShot({
      command: argv[0],
      args: argv.slice(1),
      out: values.out!,
      body: seen.body,
      redactEnv: values['redact-env'],
      graceMs,
      tmpdir: dir,
      output: io.stdout as Writable,
      stderr: io.stderr === process.stderr ? 'inherit' : (io.stderr as Writable),
      cwd: io.cwd,
      env: dir ? { ...io.env, TAPEDECK_TMPDIR: dir } : io.env,
    }).finally(() => dir && rmSync(dir, { recursive: true, force: true }));
    return notRecorded(shot, values.out!, io);
  }
  const { recordProtocol } = await import('../../recorder/stdio/tap.js');
  const result = await recordProtocol({
    command: argv[0],
    args: argv.slice(1),
    out: values.out!,
    boundary: boundaryOf(values),
    redactEnv: values['redact-env'],
    graceMs,
    tmpdir: dir,
    input: seen.input,
    output: io.stdout as Writable,
    // The bin hands the server its own stderr; an embedding caller gets the server's messages in io.stderr.
    stderr: io.stderr === process.stderr ? 'inherit' : (io.stderr as Writable),
    cwd: io.cwd,
    env: dir ? { ...io.env, TAPEDECK_TMPDIR: dir } : io.env,
  }).finally(() => dir && rmSync(dir, { recursive: true, force: true }));
  return notRecorded(result, values.out!, io);
}

async function recordTransportCommand({ values, command, io }: RecordContext): Promise<number> {
  if (values.transport !== 'http' && values.transport !== 'unix') throw usageError(`record: --transport must be stdio, http or unix, got ${JSON.stringify(values.transport)}`);
  const { recordTransport } = await import('../../recorder/net/record-transport.js');
  const result = await recordTransport({
    transport: values.transport,
    listen: listenAddress('record', values.transport, values),
    upstream: values.upstream,
    command,
    out: values.out!,
    boundary: boundaryOf(values),
    redactEnv: values['redact-env'],
    bodyLimit: parseIntOption('max-body', values['max-body'], 8 * 1024 * 1024, 1, Number.MAX_SAFE_INTEGER),
    onListening: (address) => io.stderr.write(`tapedeck record: listening on ${address}\n`),
  });
  return notRecorded(result, values.out!, io);
}

/**
 * The exit code of a recording: the server's own when every pair reached the tape; 2 (a file that could
 * not be written: EFBIG, ENOSPC, a line over the limit) when some did not, said on stderr, so a script
 * that records never keeps a short tape as if it were whole.
 */
function notRecorded(result: { exitCode: number; pairsNotWritten: number }, out: string, io: RecordContext['io']): number {
  if (result.pairsNotWritten === 0) return result.exitCode;
  io.stderr.write(`tapedeck: ${result.pairsNotWritten} pair(s) were not recorded to ${out}\n`);
  return ExitCode.usage;
}

function boundaryOf(values: { boundary?: string; 'pair-by'?: string }): Boundary {
  if (values['pair-by'] !== undefined && values.boundary !== undefined) throw usageError('record: --pair-by and --boundary both say where a response ends; give one');
  return values['pair-by'] !== undefined ? pairByBoundary(values['pair-by']) : parseBoundary(values.boundary ?? 'auto');
}
