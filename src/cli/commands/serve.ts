import { usageError } from '../../core/diagnostics/errors.js';
import { Readable, type Writable } from 'node:stream';
import { parseIntOption } from '../args.js';
import { defineCommand } from '../command.js';
import { normaliserOptionSpec } from '../normaliser-options.js';
import { listenAddress, listenAliasOptions } from '../listen-aliases.js';

// The definition and help load eagerly; what a run needs (stdio or a network transport) loads inside run.
export const command = defineCommand({
  name: 'serve',
  summary: 'answer a client from a protocol tape (a stand-in server)',
  usage: ['TAPE [options] [--passthrough -- CMD ARGS...]'],
  description: `Answers a client on stdin/stdout (or over HTTP or a Unix socket) from a protocol tape, as a
stand-in for the recorded server. An unmatched request is reported on stderr with the closest
recorded request and how it differs. Exit 1 if a request went unmatched or a recorded pair went
unused (over HTTP and sockets: counted when it stops, on SIGINT/SIGTERM).`,
  options: {
    ...normaliserOptionSpec,
    ignore: { ...normaliserOptionSpec.ignore, help: 'ignore a volatile JSON value when matching requests (repeatable)' },
    filter: { ...normaliserOptionSpec.filter, help: 'rewrite volatile bytes when matching requests (repeatable)' },
    'ignore-key-order': { ...normaliserOptionSpec['ignore-key-order'], help: 'match JSON requests whatever the order of their keys' },
    'allow-unused': { type: 'boolean', default: false, help: 'recorded pairs the client never asked for are fine' },
    passthrough: {
      type: 'boolean',
      default: false,
      help: 'with -- CMD: forward requests the tape cannot answer to a real server (started at the first one, after the requests already served), answer with its response and append the pair to the tape',
    },
    'timeout-ms': { type: 'string', arg: 'N', help: 'how long the passthrough server may take per response (default 10000)' },
    transport: { type: 'string', default: 'stdio', arg: 'T', help: 'stdio (default), http or unix' },
    listen: {
      type: 'string',
      arg: 'ADDR',
      help: 'http: HOST:PORT (default 127.0.0.1 and a free port; loopback unless ADDR names another address); unix: a socket path, created 0600 in a directory only you can write to, unlinked on bind and on exit (default: a private one). The address is printed on stderr.',
    },
    ...listenAliasOptions,
    'auth-token': { type: 'string', arg: 'T', help: 'every request must carry Authorization: Bearer T (else 401)' },
    'max-body': { type: 'string', arg: 'BYTES', help: 'refuse larger request bodies with 413 (default 8 MiB)' },
    pace: {
      type: 'string',
      arg: 'P',
      help: 'recorded (default): a response of several messages (progress notifications, then the result) goes out one message at a time, as a live server sends them; none: all at once',
    },
  },
  positionals: { min: 1, max: 1, message: 'give exactly one tape' },
  passthrough: true,
  pathPositionals: true,
  async run({ values, positionals, command, io }) {
    if (values.passthrough !== command.length > 0) throw usageError('serve: --passthrough and the server command after -- go together');
    const { resolveReplaySettings } = await import('../../replayer/settings.js');
    const { normaliser } = resolveReplaySettings({ config: values.config, cwd: io.cwd, ignore: values.ignore, filter: values.filter, ignoreKeyOrder: values['ignore-key-order'] });
    const transport = values.transport;
    if (transport !== 'stdio' && transport !== 'http' && transport !== 'unix') throw usageError(`serve: --transport must be stdio, http or unix, got ${JSON.stringify(transport)}`);
    const log = (m: string) => void io.stderr.write(m);
    const pace = (await import('../../replayer/pace.js')).parsePace(values.pace, 'serve');
    if (transport !== 'stdio') {
      if (values.passthrough) throw usageError('serve: --passthrough works over stdio only');
      if (transport === 'unix' && values['auth-token'] !== undefined) throw usageError('serve: --auth-token applies to --transport http');
      const [{ serveTransport }, { DEFAULT_BODY_LIMIT }] = await Promise.all([import('../../replayer/serve/transport.js'), import('../../plumbing/net/http-wire.js')]);
      const result = await serveTransport(positionals[0], {
        transport,
        listen: listenAddress('serve', transport, values),
        authToken: values['auth-token'],
        bodyLimit: parseIntOption('max-body', values['max-body'], DEFAULT_BODY_LIMIT, 1, Number.MAX_SAFE_INTEGER),
        pace,
        normaliser,
        allowUnused: values['allow-unused'],
        log,
        env: io.env,
        onListening: (address) => io.stderr.write(`tapedeck serve: listening on ${address}\n`),
      });
      return result.exitCode;
    }
    const given = (['listen', 'port', 'socket', 'auth-token', 'max-body'] as const).find((k) => values[k] !== undefined);
    if (given) throw usageError(`serve: --${given} applies to --transport http or unix`);
    const timeoutMs = parseIntOption('timeout-ms', values['timeout-ms'], 10_000, 1);
    const { serveTape } = await import('../../replayer/serve/serve.js');
    let input: Readable | undefined;
    const result = await serveTape(positionals[0], {
      normaliser,
      allowUnused: values['allow-unused'],
      passthrough: command,
      timeoutMs,
      pace,
      // Read once the tape is: a tape that cannot be read ends the run before stdin is opened
      // (a file on stdin is an fs stream, which loads fs/promises and readline: bench/cli-start.mjs).
      get input() {
        return (input ??= (io.stdin as Readable | undefined) ?? Readable.from([]));
      },
      output: io.stdout as Writable,
      log,
      env: io.env,
    });
    if (result.appended > 0) io.stderr.write(`tapedeck serve: appended ${result.appended} pair(s) from the passthrough server to ${positionals[0]}\n`);
    return result.exitCode;
  },
});
