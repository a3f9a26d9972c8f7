import { statSync } from 'node:fs';
import { usageError } from '../../core/diagnostics/errors.js';

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
import { defineCommand } from '../command.js';
import { replayNotes, replayOptions } from '../replay-options.js';

// replay's options, but --out is the report (so no --report, and no JUnit, whose file --out names).
const { report: _report, reporter: _reporter, out: _out, ...options } = replayOptions;

export const command = defineCommand({
  name: 'report',
  summary: 'replay tapes and write a self-contained HTML report of the run',
  usage: ['--out report.html TAPE... [replay options] [-- CMD ARGS...]', '--out report.html GOLDENS-FOLDER...'],
  description: `Replays the tapes as \`tapedeck replay\` does and writes one self-contained HTML report of the run:
a summary, and per drift the request and responses with the changed JSON paths, or the screens side
by side, screenshots with a slider and a blend, and players for the recorded and replayed sessions.
The exit code is replay's.
Given folders of goldens with pending candidates (a vitest run's <golden>.new and <name>.actual.png),
and no tapes, it writes the same report of those instead: golden against candidate, nothing replayed
(exit 0 once written).`,
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
    // Folders only and no command: a vitest run's leftovers (pending goldens), when there are any.
    if (context.command.length === 0 && context.positionals.length > 0 && context.positionals.every(isFolder)) {
      const { pendingReport } = await import('../../report/pending.js');
      const run = pendingReport(context.positionals, context.io.cwd);
      if (run) {
        const { renderHtmlReport } = await import('../../report/html.js');
        const { writeFileAtomic } = await import('../../core/files/atomic-write.js');
        writeFileAtomic(out, renderHtmlReport(run));
        context.io.stderr.write(`tapedeck: wrote the report of ${run.tapes.length} pending golden(s) to ${out}\n`);
        return 0;
      }
    }
    const { replay } = await import('./replay-run.js');
    return replay({ ...context, values: { ...values, report: out, reporter: undefined, out: undefined } });
  },
});
