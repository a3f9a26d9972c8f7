import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { TapedeckError } from '../../core/diagnostics/errors.js';

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Finds the program the way execvp would. node-pty forks before exec, so a
 * missing program would otherwise show up only as a silent exit code 1.
 */
export function resolveCommand(command: string, cwd: string, env: Record<string, string>): string {
  if (command.includes('/')) {
    const full = isAbsolute(command) ? command : resolve(cwd, command);
    if (isExecutableFile(full)) return full;
  } else {
    for (const dir of (env.PATH ?? '').split(delimiter)) {
      if (dir && isExecutableFile(join(dir, command))) return join(dir, command);
    }
  }
  throw new TapedeckError('SPAWN_FAILED', `cannot start ${JSON.stringify(command)}: not found or not executable`, {
    details: { command },
  });
}

/** node-pty reports a bad working directory only as a silent exit code 1: check it first. */
export function checkWorkingDirectory(cwd: string): void {
  let ok = false;
  try {
    ok = statSync(cwd).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) {
    throw new TapedeckError('SPAWN_FAILED', `cannot start in ${JSON.stringify(cwd)}: not a directory`, {
      details: { cwd },
    });
  }
}
