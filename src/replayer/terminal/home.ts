import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * Where a replayed program runs and what HOME it sees. Programs save state
 * in HOME (htop its settings, shells their history); with the caller's HOME
 * one replay changes the next. A fresh empty HOME per replay keeps every run
 * alike; the XDG variables are dropped so they default under it too.
 */
export function freshHome(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'tapedeck-home-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function freshHomeEnv(home: string): Record<string, string | undefined> {
  return { HOME: home, XDG_CONFIG_HOME: undefined, XDG_DATA_HOME: undefined, XDG_CACHE_HOME: undefined, XDG_STATE_HOME: undefined };
}

/**
 * The recording's directory: first as seen from the tape (a tape checked into
 * a repository finds the checkout it is in), then the absolute path; neither
 * there, the current directory (undefined).
 */
export function recordedCwd(tape: string, header: { cwd?: string; cwdFromTape?: string }): string | undefined {
  const candidates = [header.cwdFromTape ? resolve(dirname(tape), header.cwdFromTape) : undefined, header.cwd];
  return candidates.find((dir) => dir !== undefined && isDirectory(dir));
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The only variables a tape's header may set for the replayed program. A
 * blocklist cannot keep up with the ways an environment runs code (BASH_FUNC_*,
 * VIMINIT, LESSOPEN, PATH, PYTHONPATH...), and a tape may come from anywhere:
 * only terminal and locale settings are taken. Anything else a program needs
 * goes in its recorded argv (env NAME=VALUE cmd) or in the replay's own env.
 */
const RECORDED_ENV_ALLOWED = /^(SHELL|TERM|COLORTERM|LANG|LANGUAGE|LC_[A-Z]+|TZ)$/;

/** The variables of the tape's header the replayed program gets (terminal and locale settings only). */
export function recordedEnv(header: { env?: Record<string, string> }): Record<string, string> {
  return Object.fromEntries(Object.entries(header.env ?? {}).filter(([name]) => RECORDED_ENV_ALLOWED.test(name)));
}
