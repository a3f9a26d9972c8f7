import { usageError } from '../../core/diagnostics/errors.js';
import { defineCommand } from '../command.js';
import { replayNotes, replayOptions } from '../replay-options.js';

// replay's options, but --out is the report (so no --report, and no JUnit, whose file --out names).
const { report: _report, reporter: _reporter, out: _out, ...options } = replayOptions;

export const command = defineCommand({
  name: 'report',
  summary: 'replay tapes and write a self-contained HTML report of the run',
  usage: ['--out report.html TAPE... [replay options] [-- CMD ARGS...]'],
  description: `Replays the tapes as \`tapedeck replay\` does and writes one self-contained HTML report of the run:
a summary, and per drift the request and responses with the changed JSON paths, or the screens side
by side, screenshots with a slider and a blend, and players for the recorded and replayed sessions.
The exit code is replay's.`,
  options: {
    out: { type: 'string', arg: 'FILE', path: true, help: 'where to write the HTML report (required)' },
    ...options,
  },
  sectionNotes: replayNotes,
  passthrough: true,
  pathPositionals: true,
  async run(context) {
    const { out, ...values } = context.values;
    if (!out) throw usageError('report: --out report.html is required');
    const { replay } = await import('./replay-run.js');
    return replay({ ...context, values: { ...values, report: out, reporter: undefined, out: undefined } });
  },
});
