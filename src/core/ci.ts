/** CI detection and golden update modes (docs/ARCHITECTURE.md "Update modes and CI"). */
export type UpdateMode = 'none' | 'new' | 'all';

export function isCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.CI;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/**
 * The mode in force: an explicit request (`-u`, `--update`) wins, then
 * TAPEDECK_UPDATE, then the default: `none` on CI, `new` locally.
 */
export function resolveUpdateMode(explicit?: UpdateMode, env: NodeJS.ProcessEnv = process.env): UpdateMode {
  if (explicit) return explicit;
  const fromEnv = env.TAPEDECK_UPDATE?.trim().toLowerCase();
  if (fromEnv === 'none' || fromEnv === 'new' || fromEnv === 'all') return fromEnv;
  return isCI(env) ? 'none' : 'new';
}
