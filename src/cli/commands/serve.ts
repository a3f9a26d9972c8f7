import { usageError } from '../../core/errors.js';
import { serveTape } from '../../replayer/serve.js';
import { DEFAULT_BODY_LIMIT } from '../../core/http-wire.js';
import { serveTransport } from '../../replayer/serve-transport.js';
import { parseIntOption, parseOptions } from '../args.js';
import { buildNormaliser, normaliserOptionSpec } from '../normaliser-options.js';

const HELP = `usage: tapedeck serve TAPE [options]

Answers a client on stdin/stdout (or over HTTP or a Unix socket) from a protocol tape, as a
stand-in for the recorded server. Exit 1 if a request went unmatched or a recorded pair went
unused (over HTTP and sockets: counted when it stops, on SIGINT/SIGTERM).

options:
  --ignore JSONPATH    ignore a volatile JSON value when matching requests (repeatable)
  --filter RE=REPL     rewrite volatile bytes when matching requests (repeatable)
  --config FILE        normalisers (default ./tapedeck.config.json if present)
  --allow-unused       recorded pairs the client never asked for are fine
  --transport T        stdio (default), http or unix
  --listen ADDR        http: HOST:PORT (default 127.0.0.1 and a free port; loopback unless ADDR
                       names another address); unix: a socket path, created 0600 in a directory
                       only you can write to, unlinked on bind and on exit (default: a private
                       one). The address is printed on stderr.
  --auth-token T       every request must carry Authorization: Bearer T (else 401)
  --max-body BYTES     refuse larger request bodies with 413 (default 8 MiB)
`;

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { values, positionals } = parseOptions('serve', argv, {
    ...normaliserOptionSpec,
    'allow-unused': { type: 'boolean', default: false },
    transport: { type: 'string', default: 'stdio' },
    listen: { type: 'string' },
    'auth-token': { type: 'string' },
    'max-body': { type: 'string' },
  });
  if (positionals.length !== 1) throw usageError('serve: give exactly one tape');
  const { normaliser } = buildNormaliser(values);
  const transport = values.transport!;
  if (transport !== 'stdio' && transport !== 'http' && transport !== 'unix') throw usageError(`serve: --transport must be stdio, http or unix, got ${JSON.stringify(transport)}`);
  if (transport === 'stdio') {
    const given = (['listen', 'auth-token', 'max-body'] as const).find((k) => values[k] !== undefined);
    if (given) throw usageError(`serve: --${given} applies to --transport http or unix`);
    const result = await serveTape(positionals[0], { normaliser, allowUnused: values['allow-unused'] });
    return result.exitCode;
  }
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
