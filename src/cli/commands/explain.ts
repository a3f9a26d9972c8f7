import { allCodes, codeInfo } from '../../core/codes.js';
import { usageError } from '../../core/errors.js';

export async function run(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const codes = argv.filter((a) => !a.startsWith('--'));
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
