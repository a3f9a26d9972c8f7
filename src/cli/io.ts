import type { CliIO } from '../core/io.js';

export type { CliIO, CliOutput } from '../core/io.js';

/** The real process's streams; stdin is created only when a command reads it. */
export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
  };
}
