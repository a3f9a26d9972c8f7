import { usageError } from '../../core/diagnostics/errors.js';
import { jsonForTerminal } from '../../core/text/terminal-safe.js';
import { defineCommand } from '../command.js';

export const command = defineCommand({
  name: 'explain',
  summary: 'explain a TDxxxx diagnostic code',
  usage: ['[CODE...] [--json]'],
  description: 'Prints the long explanation of each TDxxxx diagnostic code, or the list of codes.',
  options: {
    json: { type: 'boolean', default: false, help: 'one JSON result envelope per code' },
  },
  async run({ values, positionals: codes, io }) {
    const { allCodes, codeInfo } = await import('../../core/diagnostics/codes.js');
    if (codes.length === 0) {
      for (const c of allCodes()) io.stdout.write(`${c.code}  ${c.title}\n`);
      return 0;
    }
    for (const code of codes) {
      const info = codeInfo(code);
      if (!info) throw usageError(`explain: unknown code ${JSON.stringify(code)} (run tapedeck explain for the list)`);
      if (values.json) io.stdout.write(`${jsonForTerminal({ ok: true, command: 'explain', timestamp: new Date().toISOString(), result: info })}\n`);
      else io.stdout.write(`${info.code}: ${info.title}\n\n${info.explanation}\n`);
    }
    return 0;
  },
});
