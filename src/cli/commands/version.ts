import { jsonForTerminal } from '../../core/text/terminal-safe.js';
import { readFileSync } from 'node:fs';
import { packagePath } from '../../core/package-root.js';
import { defineCommand } from '../command.js';

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** agent-tty's control protocol version: bumped when a request or result shape changes incompatibly. */
export const PROTOCOL_VERSION = '1.0.0';
/**
 * Static, as in seed 002 §20: the one backend screenshots are drawn with
 * (render/raster/index.ts RASTER_RENDERER, not imported here; a test keeps them equal).
 */
export const RENDERER_BACKENDS = ['tapedeck-raster'];

/** Seed 002 §20's `version --json` result, shared by `tapedeck version` and `agent-tty version`. */
export function versionResult(): Record<string, unknown> {
  return {
    cliVersion: packageVersion(),
    protocolVersion: PROTOCOL_VERSION,
    rendererBackends: RENDERER_BACKENDS,
    runtime: { node: process.version, platform: process.platform, arch: process.arch },
  };
}

export const command = defineCommand({
  name: 'version',
  summary: 'print the version',
  usage: ['[--json]'],
  description: 'Prints the version of tapedeck (also tapedeck --version).',
  options: {
    json: { type: 'boolean', default: false, help: 'the versions of the CLI, the session protocol and the renderer, and the runtime (seed 002 §20)' },
  },
  positionals: { max: 0, message: 'takes no arguments' },
  async run({ values, io }) {
    if (values.json) {
      // version and node are kept beside the seed's fields for older readers.
      const result = { ...versionResult(), version: packageVersion(), node: process.version };
      io.stdout.write(`${jsonForTerminal({ ok: true, command: 'version', timestamp: new Date().toISOString(), result })}\n`);
    } else {
      io.stdout.write(`tapedeck ${packageVersion()}\n`);
    }
    return 0;
  },
});
