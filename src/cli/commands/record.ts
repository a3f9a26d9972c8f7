import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBoundary } from '../../core/boundary.js';
import { usageError } from '../../core/errors.js';
import { recordProtocol } from '../../recorder/protocol-tap.js';
import { recordTransport } from '../../recorder/record-transport.js';
import { tapeKind } from '../../tape/kind.js';
import { parseIntOption, parseOptions, splitCommand } from '../args.js';

const HELP = `usage: tapedeck record --out FILE [--kind protocol|terminal] [options] -- CMD ARGS...
       tapedeck record --out FILE --transport http|unix [--listen ADDR] (--upstream URL | -- CMD ARGS...)

The kind comes from the extension: .ndjson/.jsonl record a protocol tape, .cast a terminal tape.

options:
  --redact-env NAME    store NAME's value as {{tapedeck.env.NAME}} (repeatable; casts: in
                       the output, the input and the header)

protocol options:
  --boundary RULE      where a response ends: auto (default), done, jsonrpc, idle:MS
  --grace-ms N         after end of input, or a signal passed on, how long the server may take
                       to exit before its process group is stopped (default 2000)
  {{tapedeck.tmpdir}} in CMD is a fresh scratch directory (removed afterwards), stored in the tape
  as the placeholder, so a replay's own scratch directory matches.

protocol over a network transport (a recording proxy; stops on SIGINT/SIGTERM or when CMD exits):
  --transport T        stdio (default), http or unix
  --listen ADDR        http: HOST:PORT (default 127.0.0.1 and a free port; loopback unless
                       ADDR names another address); unix: a socket path in a directory only
                       you can write to (default: a private one). The address is printed.
  --upstream URL       a running server: http://HOST:PORT or unix:PATH; or give CMD with
                       {{port}} or {{socket}}, filled in with a free port or a private socket
  --max-body BYTES     refuse larger request bodies with 413 (default 8 MiB)
  Bearer tokens are passed through and never stored (one seen in a body is stored as
  {{tapedeck.env.TAPEDECK_AUTH_TOKEN}}).

terminal options:
  --rows R --cols C    terminal size (default: the real terminal's, else 24x80)
  --title T            the cast's title
  --format v3|v2       asciicast version to write (default v3)
`;


export async function run(argv: string[]): Promise<number> {
  const { own, command } = splitCommand(argv);
  if (own.includes('--help') || own.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  const kindFlag = own.indexOf('--kind');
  const outFlag = own.indexOf('--out');
  const out = outFlag >= 0 ? own[outFlag + 1] : undefined;
  if (!out) throw usageError('record: --out FILE is required');
  const kind = (kindFlag >= 0 ? own[kindFlag + 1] : undefined) ?? tapeKind(out);
  if (kind !== 'protocol' && kind !== 'terminal') {
    throw usageError(`record: cannot tell the tape kind of ${JSON.stringify(out)}: name it .ndjson/.jsonl or .cast, or pass --kind protocol|terminal`);
  }
  const transport = own.includes('--transport') ? own[own.indexOf('--transport') + 1] : undefined;
  if (transport !== undefined && transport !== 'stdio') {
    if (kind !== 'protocol') throw usageError('record: --transport applies to protocol tapes (.ndjson/.jsonl)');
    return recordTransportCommand(own, command);
  }
  if (command.length === 0) throw usageError('record: give the command to record after --, e.g. tapedeck record --out tape.ndjson -- node server.js');
  if (kind === 'terminal') {
    const { runTerminalRecord } = await import('./record-terminal.js');
    return runTerminalRecord(own, command);
  }
  return recordProtocolCommand(own, command);
}

async function recordProtocolCommand(own: string[], command: string[]): Promise<number> {
  const { values, positionals } = parseOptions('record', own, {
    out: { type: 'string' },
    kind: { type: 'string' },
    boundary: { type: 'string', default: 'auto' },
    'redact-env': { type: 'string', multiple: true, default: [] },
    'grace-ms': { type: 'string' },
  });
  if (positionals.length > 0) throw usageError(`record: unexpected argument ${JSON.stringify(positionals[0])} (the command goes after --)`);
  const graceMs = parseIntOption('grace-ms', values['grace-ms'], 2000, 0);
  const dir = command.some((a) => a.includes('{{tapedeck.tmpdir}}')) ? mkdtempSync(join(tmpdir(), 'tapedeck-scratch-')) : undefined;
  const argv = dir ? command.map((a) => a.split('{{tapedeck.tmpdir}}').join(dir)) : command;
  const result = await recordProtocol({
    command: argv[0],
    args: argv.slice(1),
    out: values.out!,
    boundary: parseBoundary(values.boundary!),
    redactEnv: values['redact-env'],
    graceMs,
    tmpdir: dir,
    env: dir ? { ...process.env, TAPEDECK_TMPDIR: dir } : undefined,
  }).finally(() => dir && rmSync(dir, { recursive: true, force: true }));
  if (result.pairsNotWritten > 0) {
    process.stderr.write(`tapedeck: ${result.pairsNotWritten} pair(s) were not recorded to ${values.out}\n`);
  }
  return result.exitCode;
}

async function recordTransportCommand(own: string[], command: string[]): Promise<number> {
  const { values, positionals } = parseOptions('record', own, {
    out: { type: 'string' },
    kind: { type: 'string' },
    transport: { type: 'string' },
    listen: { type: 'string' },
    upstream: { type: 'string' },
    'max-body': { type: 'string' },
    boundary: { type: 'string', default: 'auto' },
    'redact-env': { type: 'string', multiple: true, default: [] },
  });
  if (positionals.length > 0) throw usageError(`record: unexpected argument ${JSON.stringify(positionals[0])} (the command goes after --)`);
  if (values.transport !== 'http' && values.transport !== 'unix') throw usageError(`record: --transport must be stdio, http or unix, got ${JSON.stringify(values.transport)}`);
  const result = await recordTransport({
    transport: values.transport,
    listen: values.listen,
    upstream: values.upstream,
    command,
    out: values.out!,
    boundary: parseBoundary(values.boundary!),
    redactEnv: values['redact-env'],
    bodyLimit: parseIntOption('max-body', values['max-body'], 8 * 1024 * 1024, 1, Number.MAX_SAFE_INTEGER),
    onListening: (address) => process.stderr.write(`tapedeck record: listening on ${address}\n`),
  });
  if (result.pairsNotWritten > 0) process.stderr.write(`tapedeck: ${result.pairsNotWritten} pair(s) were not recorded to ${values.out}\n`);
  return result.exitCode;
}
