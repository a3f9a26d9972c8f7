import { jsonForTerminal } from '../../core/text/terminal-safe.js';
import { defineCommand } from '../command.js';
import { usageError } from '../../core/diagnostics/errors.js';
import { resultEnvelope } from '../../core/diagnostics/envelope.js';
import { playCast, type CastPosition } from '../../session/cast/play.js';


export function parsePosition(at: string | undefined): CastPosition {
  if (at === undefined) return undefined;
  if (at.trim() !== '' && Number.isFinite(Number(at))) {
    const seconds = Number(at);
    if (seconds < 0) throw usageError(`snapshot: --at seconds must be >= 0, got ${at}`);
    return { seconds };
  }
  if (at === '') throw usageError('snapshot: --at needs a marker name, #N or a number of seconds');
  const index = /^#(\d+)$/.exec(at);
  if (index) {
    if (Number(index[1]) < 1) throw usageError(`snapshot: --at #N counts markers from 1, got ${at}`);
    return { markerIndex: Number(index[1]) };
  }
  return { marker: at };
}

export const command = defineCommand({
  name: 'snapshot',
  summary: 'print the screen of a terminal tape at a marker or time',
  usage: ['FILE.cast [--at MARKER|#N|SECONDS] [--format text|structured] [--include-scrollback] [--include-cells]'],
  description: `Plays the tape onto a headless terminal up to a marker (after it) or a time in
seconds (every event at or before it; default: the end) and prints the screen.
A number is read as seconds; #N as the N-th marker (1-based, also for markers
with an empty label); anything else as a marker name. --format structured
(seed 002's name; "json" is kept as an alias) prints the §1.3 envelope.`,
  options: {
    at: { type: 'string', arg: 'POS', help: 'a marker name, #N (the N-th marker) or a number of seconds (default: the end)' },
    format: { type: 'string', arg: 'F', help: 'text (default) or structured (alias json)' },
    json: { type: 'boolean', help: 'the same as --format structured' },
    'include-scrollback': { type: 'boolean', help: 'also the lines scrolled off the top' },
    'include-cells': { type: 'boolean', help: 'structured: every cell with its colours and attributes' },
  },
  positionals: { min: 1, max: 1, message: 'expected exactly one FILE.cast' },
  pathPositionals: true,
  async run({ values, positionals, io }) {
    const given = values.format ?? (values.json ? 'structured' : 'text');
    const format = given === 'json' ? 'structured' : given;
    if (format !== 'text' && format !== 'structured') throw usageError(`snapshot: --format expects text or structured (alias json), got ${JSON.stringify(given)}`);
    const file = positionals[0];
    const played = await playCast(file, parsePosition(values.at));
    try {
      const snap = played.screen.snapshot({ includeScrollback: values['include-scrollback'], includeCells: values['include-cells'] });
      if (format === 'structured') {
        const result = { file, at: values.at ?? null, time: played.time, ...(played.exitStatus === undefined ? {} : { exitStatus: played.exitStatus }), ...snap };
        io.stdout.write(`${jsonForTerminal(resultEnvelope('snapshot', result))}\n`);
      } else {
        const lines = [...(snap.scrollbackLines ?? []), ...snap.visibleLines];
        let end = lines.length;
        while (end > 0 && lines[end - 1] === '') end--;
        io.stdout.write(lines.slice(0, end).map((l) => `${l}\n`).join(''));
      }
    } finally {
      played.screen.dispose();
    }
    return 0;
  },
});
