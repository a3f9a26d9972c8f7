import type { CommandDef } from '../command.js';
import type { AgentContext } from '../config.js';
import type { ParsedArgs } from '../argv.js';
import { AgentExit } from '../../../agent-tty/errors.js';

export const doctor: CommandDef = {
  name: 'doctor',
  maxPositionals: 0,
  summary: 'check the home, control sockets, PTYs, Chromium, fonts and screenshots',
  usage: 'agent-tty doctor',
  options: {},
  async run(ctx: AgentContext, _args: ParsedArgs) {
    const { runDoctorChecks } = await import('../../commands/doctor.js');
    const checks = await runDoctorChecks(ctx.home);
    const ok = checks.every((c) => c.ok);
    const human = checks
      .map((c) => `${!c.ok ? 'FAIL' : 'warning' in c && c.warning ? 'warn' : 'ok  '} ${c.name}${c.detail ? `: ${c.detail}` : ''}${!c.ok && c.fix ? `\n     fix: ${c.fix}` : ''}`)
      .join('\n');
    return { result: { ok, checks }, human, ...(ok ? {} : { exitCode: AgentExit.environment }) };
  },
};
