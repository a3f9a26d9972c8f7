import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TapedeckError } from '../core/diagnostics/errors.js';
import { TMPDIR_PLACEHOLDER } from './protocol/prepare.js';

/**
 * A fresh scratch directory per tape replay, so stateful servers (a memory
 * graph file, a sandboxed folder) replayed side by side with --jobs never
 * share state. It is offered as {{tapedeck.tmpdir}} in the command and the
 * tape, and as TAPEDECK_TMPDIR in the environment; an optional setup command
 * runs in it (through sh) before the server starts.
 */
export interface Scratch {
  dir?: string;
  command: readonly string[];
  env: NodeJS.ProcessEnv;
  cleanup: () => void;
}

export function openScratch(
  tapePath: string,
  command: readonly string[],
  env: NodeJS.ProcessEnv,
  options: { tapeUsesIt: boolean; setup?: string; always?: boolean },
): Scratch {
  const wanted = options.always || options.tapeUsesIt || options.setup !== undefined || command.some((a) => a.includes(TMPDIR_PLACEHOLDER));
  if (!wanted) return { command, env, cleanup: () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-scratch-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const withEnv = { ...env, TAPEDECK_TMPDIR: dir, TAPEDECK_TAPE: tapePath };
  if (options.setup !== undefined) {
    const r = spawnSync('sh', ['-c', options.setup], { cwd: dir, env: withEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (r.status !== 0) {
      cleanup();
      const why = r.error ? r.error.message : r.signal ? `killed by ${r.signal}` : `exit ${r.status}`;
      const tail = (r.stderr ?? '').trim().split('\n').slice(-5).join('\n  ');
      throw new TapedeckError('TD2003', `the setup command failed (${why}): ${options.setup}${tail ? `\n  ${tail}` : ''}`, { location: { file: tapePath } });
    }
  }
  return { dir, command: command.map((a) => a.split(TMPDIR_PLACEHOLDER).join(dir)), env: withEnv, cleanup };
}
