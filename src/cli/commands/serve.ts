import { usageError } from '../../core/errors.js';
import { serveTape } from '../../replayer/serve.js';
import { parseOptions } from '../args.js';
import { normaliserOptionSpec } from '../normaliser-options.js';
import { resolveReplaySettings } from '../../replayer/settings.js';

const HELP = `usage: tapedeck serve TAPE [options]

Answers a client on stdin/stdout from a protocol tape, as a stand-in for the recorded server.
Exit 1 if a request went unmatched or a recorded pair went unused.

options:
  --ignore JSONPATH    ignore a volatile JSON value when matching requests (repeatable)
  --filter RE=REPL     rewrite volatile bytes when matching requests (repeatable)
  --config FILE        normalisers (default ./tapedeck.config.json if present)
  --allow-unused       recorded pairs the client never asked for are fine
`;

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { values, positionals } = parseOptions('serve', argv, {
    ...normaliserOptionSpec,
    'allow-unused': { type: 'boolean', default: false },
  });
  if (positionals.length !== 1) throw usageError('serve: give exactly one tape');
  const { normaliser } = resolveReplaySettings({ config: values.config, ignore: values.ignore, filter: values.filter, ignoreKeyOrder: values['ignore-key-order'] });
  const result = await serveTape(positionals[0], { normaliser, allowUnused: values['allow-unused'] });
  return result.exitCode;
}
