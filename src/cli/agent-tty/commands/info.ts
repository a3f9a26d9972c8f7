import type { CommandDef } from '../command.js';
import type { AgentContext } from '../config.js';
import type { ParsedArgs } from '../argv.js';
import { AgentExit } from '../errors.js';
import { socketCheck } from '../socket-check.js';
import { packageVersion } from '../../commands/version.js';
import { runDoctorChecks } from '../../commands/doctor.js';
import { BROWSER_BACKEND } from '../../../render/renderer.js';

/** The control protocol's version: bumped when a request or result shape changes incompatibly. */
export const PROTOCOL_VERSION = '1.0.0';
/** Static, as in the seed (§20): the one backend screenshots are drawn with. */
export const RENDERER_BACKENDS = [BROWSER_BACKEND];

export function versionResult(): Record<string, unknown> {
  return {
    cliVersion: packageVersion(),
    protocolVersion: PROTOCOL_VERSION,
    rendererBackends: RENDERER_BACKENDS,
    runtime: { node: process.version, platform: process.platform, arch: process.arch },
  };
}

export const version: CommandDef = {
  name: 'version',
  summary: 'CLI and protocol versions, renderer backends, runtime',
  usage: 'agent-tty version',
  options: {},
  async run() {
    return { result: versionResult(), human: `agent-tty (tapedeck) ${packageVersion()}, protocol ${PROTOCOL_VERSION}` };
  },
};

export const doctor: CommandDef = {
  name: 'doctor',
  summary: 'check the home, control sockets, PTYs, Chromium, fonts and screenshots',
  usage: 'agent-tty doctor',
  options: {},
  async run(ctx: AgentContext, _args: ParsedArgs) {
    const checks = [...(await runDoctorChecks(ctx.home)), await socketCheck()];
    const ok = checks.every((c) => c.ok);
    const human = checks
      .map((c) => `${!c.ok ? 'FAIL' : 'warning' in c && c.warning ? 'warn' : 'ok  '} ${c.name}${c.detail ? `: ${c.detail}` : ''}${!c.ok && c.fix ? `\n     fix: ${c.fix}` : ''}`)
      .join('\n');
    return { result: { ok, checks }, human, ...(ok ? {} : { exitCode: AgentExit.environment }) };
  },
};
