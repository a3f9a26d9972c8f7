import { usageError } from '../../core/errors.js';
import { serveTape } from '../../replayer/serve.js';
import { DEFAULT_BODY_LIMIT } from '../../core/http-wire.js';
import { serveTransport } from '../../replayer/serve-transport.js';
import { parseIntOption, parseOptions, splitCommand } from '../args.js';
import { normaliserOptionSpec } from '../normaliser-options.js';
import { resolveReplaySettings } from '../../replayer/settings.js';

const HELP = `usage: tapedeck serve TAPE [options] [--passthrough -- CMD ARGS...]

Answers a client on stdin/stdout (or over HTTP or a Unix socket) from a protocol tape, as a
stand-in for the recorded server. An unmatched request is reported on stderr with the closest
recorded request and how it differs. Exit 1 if a request went unmatched or a recorded pair went
unused (over HTTP and sockets: counted when it stops, on SIGINT/SIGTERM).

options:
  --ignore JSONPATH    ignore a volatile JSON value when matching requests (repeatable)
  --filter RE=REPL     rewrite volatile bytes when matching requests (repeatable)
  --ignore-key-order   match JSON requests whatever the order of their keys
  --config FILE        normalisers, also scoped ones (default ./tapedeck.config.json if present)
  --allow-unused       recorded pairs the client never asked for are fine
  --passthrough -- CMD forward requests the tape cannot answer to a real server (started at the
                       first one, after the requests already served), answer with its response
                       and append the pair to the tape
  --timeout-ms N       how long the passthrough server may take per response (default 10000)
  --transport T        stdio (default), http or unix
  --listen ADDR        http: HOST:PORT (default 127.0.0.1 and a free port; loopback unless ADDR
                       names another address); unix: a socket path, created 0600 in a directory
                       only you can write to, unlinked on bind and on exit (default: a private
                       one). The address is printed on stderr.
  --auth-token T       every request must carry Authorization: Bearer T (else 401)
  --max-body BYTES     refuse larger request bodies with 413 (default 8 MiB)
`;

export async function run(argv: string[]): Promise<number> {
  const { own, command } = splitCommand(argv);
  if (own.includes('--help') || own.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { values, positionals } = parseOptions('serve', own, {
    ...normaliserOptionSpec,
    'allow-unused': { type: 'boolean', default: false },
    passthrough: { type: 'boolean', default: false },
    'timeout-ms': { type: 'string' },
    transport: { type: 'string', default: 'stdio' },
    listen: { type: 'string' },
    'auth-token': { type: 'string' },
    'max-body': { type: 'string' },
  });
  if (positionals.length !== 1) throw usageError('serve: give exactly one tape');
  if (values.passthrough !== command.length > 0) throw usageError('serve: --passthrough and the server command after -- go together');
  const { normaliser } = resolveReplaySettings({ config: values.config, ignore: values.ignore, filter: values.filter, ignoreKeyOrder: values['ignore-key-order'] });
  const transport = values.transport!;
  if (transport !== 'stdio' && transport !== 'http' && transport !== 'unix') throw usageError(`serve: --transport must be stdio, http or unix, got ${JSON.stringify(transport)}`);
  if (transport !== 'stdio') {
    if (values.passthrough) throw usageError('serve: --passthrough works over stdio only');
    if (transport === 'unix' && values['auth-token'] !== undefined) throw usageError('serve: --auth-token applies to --transport http');
    const result = await serveTransport(positionals[0], {
      transport,
      listen: values.listen,
      authToken: values['auth-token'],
      bodyLimit: parseIntOption('max-body', values['max-body'], DEFAULT_BODY_LIMIT, 1, Number.MAX_SAFE_INTEGER),
      normaliser,
      allowUnused: values['allow-unused'],
      onListening: (address) => process.stderr.write(`tapedeck serve: listening on ${address}\n`),
    });
    return result.exitCode;
  }
  const given = (['listen', 'auth-token', 'max-body'] as const).find((k) => values[k] !== undefined);
  if (given) throw usageError(`serve: --${given} applies to --transport http or unix`);
  const timeoutMs = parseIntOption('timeout-ms', values['timeout-ms'], 10_000, 1);
  const result = await serveTape(positionals[0], { normaliser, allowUnused: values['allow-unused'], passthrough: command, timeoutMs });
  if (result.appended > 0) process.stderr.write(`tapedeck serve: appended ${result.appended} pair(s) from the passthrough server to ${positionals[0]}\n`);
  return result.exitCode;
}
