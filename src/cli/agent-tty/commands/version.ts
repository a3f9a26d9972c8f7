import type { CommandDef } from '../command.js';
import { packageVersion } from '../../commands/version.js';

/** The control protocol's version: bumped when a request or result shape changes incompatibly. */
export const PROTOCOL_VERSION = '1.0.0';
/**
 * Static, as in the seed (§20): the one backend screenshots are drawn with
 * (render/renderer.ts BROWSER_BACKEND, not imported: it loads Playwright; a test keeps them equal).
 */
export const RENDERER_BACKENDS = ['xterm-dom-chromium'];

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
  maxPositionals: 0,
  summary: 'CLI and protocol versions, renderer backends, runtime',
  usage: 'agent-tty version',
  options: {},
  async run() {
    return { result: versionResult(), human: `agent-tty (tapedeck) ${packageVersion()}, protocol ${PROTOCOL_VERSION}` };
  },
};

