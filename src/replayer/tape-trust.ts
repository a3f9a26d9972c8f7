import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { TapedeckError } from '../core/diagnostics/errors.js';
import { defaultGoldenRoot } from '../core/golden/paths.js';
import { oneLine } from '../core/text/terminal-safe.js';

/**
 * Whose command a terminal tape may run. A tape can come from anywhere (a bug
 * report, a pull request from a fork), and its header names a program and its
 * arguments. The CLI runs that recorded command only for tapes that belong to
 * the project: under its goldens folder, or under the folder of the
 * tapedeck.config.json in use. Any other tape needs the command after `--`, or
 * `--trust-tape` to run what the tape records. Library callers name their
 * tapes in code, which is trust enough; they get no check unless they ask.
 */
export interface TapeTrust {
  /** Folders whose tapes are the project's own. */
  roots: string[];
}

export function projectTrust(options: { configPath?: string; goldens?: string; cwd?: string }): TapeTrust {
  const cwd = options.cwd ?? process.cwd();
  const projectRoot = options.configPath ? dirname(options.configPath) : cwd;
  const project = real(projectRoot);
  const goldens = real(defaultGoldenRoot(projectRoot, options.goldens));
  // A goldens folder that resolves outside the project ("/", a symlink out, TAPEDECK_GOLDENS=..) grants nothing.
  const roots = within(project, goldens) ? [goldens] : [];
  if (options.configPath) roots.push(project);
  return { roots };
}

export function isTrustedTape(path: string, trust: TapeTrust): boolean {
  const file = real(resolve(path));
  return trust.roots.some((root) => root !== file && within(root, file));
}

/** `path` is `root` or under it. */
function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Throws the exit-2 error for a tape outside the project whose recorded command would run. */
export function requireTrustedCommand(path: string, recorded: readonly string[], trust: TapeTrust): void {
  if (isTrustedTape(path, trust)) return;
  const shown = oneLine(recorded.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' '));
  throw new TapedeckError(
    'UNTRUSTED_TAPE',
    `the tape is not in this project (not under ${trust.roots.map(oneLine).join(' or ')}), so its recorded command is not run: ${shown}. ` +
      `Give the command after -- (tapedeck replay ${oneLine(path)} -- CMD ARGS...), or pass --trust-tape to run what the tape records`,
    { location: { file: path, line: 1 } }, // the header names the command
  );
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
