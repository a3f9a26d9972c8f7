/** CI detection and golden update modes (docs/ARCHITECTURE.md "Update modes and CI"). */
export type UpdateMode = 'none' | 'new' | 'all';

/** The update mode in force and, when it is none, why (for the missing-golden message). */
export interface UpdatePolicy {
  mode: UpdateMode;
  reason?: string;
}

export function isCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.CI;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/** TAPEDECK_UPDATE, parsed here and nowhere else. */
export function updateModeFromEnv(env: NodeJS.ProcessEnv = process.env): UpdateMode | undefined {
  const v = env.TAPEDECK_UPDATE?.trim().toLowerCase();
  return v === 'none' || v === 'new' || v === 'all' ? v : undefined;
}

/**
 * The policy in force: an explicit request (`-u`, `--update`) wins, then
 * TAPEDECK_UPDATE, then the default: `none` on CI, `new` locally.
 */
export function resolveUpdatePolicy(explicit?: UpdateMode, env: NodeJS.ProcessEnv = process.env): UpdatePolicy {
  if (explicit) return { mode: explicit };
  const fromEnv = updateModeFromEnv(env);
  if (fromEnv) return fromEnv === 'none' ? { mode: 'none', reason: 'TAPEDECK_UPDATE=none: goldens are never written' } : { mode: fromEnv };
  return isCI(env) ? { mode: 'none', reason: 'on CI (CI is set) goldens are never written' } : { mode: 'new' };
}

export function resolveUpdateMode(explicit?: UpdateMode, env: NodeJS.ProcessEnv = process.env): UpdateMode {
  return resolveUpdatePolicy(explicit, env).mode;
}
