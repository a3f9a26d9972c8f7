import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/** The recording's directory when it still exists here (a tape from elsewhere replays in the current one). */
export function recordedCwd(cwd: string | undefined): string | undefined {
  if (!cwd) return undefined;
  try {
    return statSync(cwd).isDirectory() ? cwd : undefined;
  } catch {
    return undefined;
  }
}
