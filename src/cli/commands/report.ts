import { usageError } from '../../core/errors.js';
import { splitCommand } from '../args.js';
import { run as replay } from './replay.js';

const HELP = `usage: tapedeck report --out report.html TAPE... [replay options] [-- CMD ARGS...]

Replays the tapes as \`tapedeck replay\` does and writes one self-contained HTML report of the run:
a summary, and per drift the request and responses with the changed JSON paths, or the screens side
by side, screenshots with a slider and a blend, and players for the recorded and replayed sessions.
The exit code is replay's.
`;

export async function run(argv: string[]): Promise<number> {
  const { own, command } = splitCommand(argv);
  if (own.includes('--help') || own.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  const at = own.indexOf('--out');
  const out = at >= 0 ? own[at + 1] : undefined;
  if (!out || out.startsWith('--')) throw usageError('report: --out report.html is required');
  const rest = [...own.slice(0, at), ...own.slice(at + 2)];
  return replay(['--report', out, ...rest, ...(command.length ? ['--', ...command] : [])]);
}
