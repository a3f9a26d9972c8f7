import { defineCommand } from '../command.js';
import { replayNotes, replayOptions } from '../replay-options.js';

// The definition and help only: what a run needs loads from replay-run.ts once the options are parsed.
export const command = defineCommand({
  name: 'replay',
  summary: 'replay tapes against a fresh process and report drift',
  usage: ['TAPE... [options] [-- CMD ARGS...]'],
  description: `Replays each tape against a fresh process and reports every difference.
Protocol tapes (.ndjson, .jsonl): each request is sent to a fresh CMD and every
response compared with the recorded one. Terminal tapes (.cast): the recorded
command runs in a fresh PTY of the recorded size; each recorded input is sent
once the screen shows what the recording showed before it; markers are
checkpoints; the final screen and exit status are compared.
CMD is required for protocol tapes. With terminal tapes only, CMD replaces
their recorded command; in a run mixing both kinds, CMD goes to the protocol
tapes and terminal tapes use their own. A terminal tape's recorded command runs
only when the tape is in this project (under its goldens folder, or under the
folder of tapedeck.config.json); for any other tape give CMD or --trust-tape.
Exit 0: no drift; 1: drift; 2: bad input, unreadable tape, or CMD cannot start.`,
  options: replayOptions,
  sectionNotes: replayNotes,
  passthrough: true,
  pathPositionals: true,
  run: async (context) => (await import('./replay-run.js')).replay(context),
});
