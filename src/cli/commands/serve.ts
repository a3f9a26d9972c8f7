import { usageError } from '../../core/errors.js';
import { serveTape } from '../../replayer/serve.js';
import { parseIntOption, parseOptions, splitCommand } from '../args.js';
import { normaliserOptionSpec } from '../normaliser-options.js';
import { resolveReplaySettings } from '../../replayer/settings.js';

const HELP = `usage: tapedeck serve TAPE [options] [--passthrough -- CMD ARGS...]

Answers a client on stdin/stdout from a protocol tape, as a stand-in for the recorded server.
An unmatched request is reported on stderr with the closest recorded request and how it differs.
Exit 1 if a request went unmatched or a recorded pair went unused.

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
  });
  if (positionals.length !== 1) throw usageError('serve: give exactly one tape');
  if (values.passthrough !== command.length > 0) throw usageError('serve: --passthrough and the server command after -- go together');
  const { normaliser } = resolveReplaySettings({ config: values.config, ignore: values.ignore, filter: values.filter, ignoreKeyOrder: values['ignore-key-order'] });
  const timeoutMs = parseIntOption('timeout-ms', values['timeout-ms'], 10_000, 1);
  const result = await serveTape(positionals[0], { normaliser, allowUnused: values['allow-unused'], passthrough: command, timeoutMs });
  if (result.appended > 0) process.stderr.write(`tapedeck serve: appended ${result.appended} pair(s) from the passthrough server to ${positionals[0]}\n`);
  return result.exitCode;
}
