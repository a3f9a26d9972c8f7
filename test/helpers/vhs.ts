import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { tapedeckInProcess, tempDir } from './cli.js';

/**
 * Call at the top of a VHS test file: `project(files)` makes a fresh folder with
 * those files and its own HOME (the shell VHS starts reads its rc files there);
 * `vhs(dir, args)` runs `tapedeck vhs` in it, locally (not CI, no update mode)
 * unless `env` says otherwise. Every folder goes when the file ends.
 */
export function useVhsProjects(prefix: string): {
  project: (files: Record<string, string | Buffer>) => string;
  vhs: (dir: string, args: string[], env?: NodeJS.ProcessEnv) => ReturnType<typeof tapedeckInProcess>;
} {
  const tmp = tempDir(`tapedeck-vhs-${prefix}-`);
  afterAll(() => tmp.cleanup());
  let n = 0;
  return {
    project(files) {
      const dir = join(tmp.dir, `p${n++}`);
      mkdirSync(join(dir, 'home'), { recursive: true });
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
      return dir;
    },
    vhs: (dir, args, env = {}) => tapedeckInProcess(['vhs', ...args], { cwd: dir, env: { HOME: join(dir, 'home'), CI: '', TAPEDECK_UPDATE: '', ...env } }),
  };
}
