import type { CommandDef } from '../command.js';
import { PROTOCOL_VERSION, packageVersion, versionResult } from '../../commands/version.js';

export const version: CommandDef = {
  name: 'version',
  maxPositionals: 0,
  summary: 'CLI and protocol versions, renderer backends, runtime',
  usage: 'agent-tty version',
  options: {},
  async run() {
    return { result: versionResult(), human: `agent-tty (tapedeck) ${packageVersion()}, protocol ${PROTOCOL_VERSION}` };
  },
};
