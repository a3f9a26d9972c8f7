import { allCodes, codeInfo } from '../../core/codes.js';
import { usageError } from '../../core/errors.js';
import { parseOptions } from '../args.js';

const HELP = `usage: tapedeck explain [CODE...] [--json]

Prints the long explanation of each TDxxxx diagnostic code, or the list of codes.
`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals: codes } = parseOptions('explain', argv, { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const json = values.json;
  if (codes.length === 0) {
    for (const c of allCodes()) process.stdout.write(`${c.code}  ${c.title}\n`);
    return 0;
  }
  for (const code of codes) {
    const info = codeInfo(code);
    if (!info) throw usageError(`explain: unknown code ${JSON.stringify(code)} (run tapedeck explain for the list)`);
    if (json) process.stdout.write(`${JSON.stringify({ ok: true, command: 'explain', timestamp: new Date().toISOString(), result: info })}\n`);
    else process.stdout.write(`${info.code}: ${info.title}\n\n${info.explanation}\n`);
  }
  return 0;
}
