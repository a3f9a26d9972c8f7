import { defineCommand } from '../command.js';
import { NETWORK, PROTOCOL, recordOptions } from './record-options.js';

// The definition and help only: what a run needs loads from record-run.ts once the options are parsed.
export const command = defineCommand({
  name: 'record',
  summary: 'record a protocol tape (.ndjson) or a terminal tape (.cast)',
  usage: ['--out FILE [--kind protocol|terminal] [options] -- CMD ARGS...', '--out FILE --transport http|unix [--listen ADDR] (--upstream URL | -- CMD ARGS...)'],
  description: `The kind comes from the extension: .ndjson/.jsonl record a protocol tape, .cast a terminal tape.
A terminal tape records CMD in a pseudo-terminal (asciicast v3 by default). Interactive when
stdin is a terminal: keys go to CMD, the tape follows your terminal's size, ctrl+] drops a
marker (marker-1, marker-2, ...), and the recording ends when CMD exits. Otherwise CMD runs to
its exit; piped stdin is forwarded to it (end of input sends ctrl+D). Exits with CMD's exit code.`,
  options: recordOptions,
  sectionNotes: {
    [PROTOCOL]: "{{tapedeck.tmpdir}} in CMD is a fresh scratch directory (removed afterwards), stored in the tape\nas the placeholder, so a replay's own scratch directory matches.",
    [NETWORK]: 'Bearer tokens are passed through and never stored (one seen in a body is stored as\n{{tapedeck.env.TAPEDECK_AUTH_TOKEN}}).',
  },
  positionals: { max: 0, message: (given) => `unexpected argument ${JSON.stringify(given[0])} (the command goes after --)` },
  passthrough: true,
  run: async (context) => (await import('./record-run.js')).record(context),
});
