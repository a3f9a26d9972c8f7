import { usageError } from '../../core/diagnostics/errors.js';
import type { CliIO } from '../io.js';

// Its own module, loaded only by `fix --apply TAPE -- CMD`: a fix run that reads envelopes from stdin loads none of replay.
export /** The envelopes of a replay of TAPE against CMD now, as `replay --json` prints them (its summary goes to stderr). */
async function recheck(tape: string, command: string[], io: CliIO): Promise<string> {
  const { command: replay } = await import('./replay.js');
  const chunks: string[] = [];
  const stdout = { write: (s: string | Uint8Array) => (chunks.push(String(s)), true), isTTY: false } as unknown as CliIO['stdout'];
  const code = await replay.run([tape, '--json', '--', ...command], { ...io, stdout, stdin: undefined });
  if (code === 2) throw usageError(`fix: re-checking ${tape} failed (the replay's message is above)`);
  return chunks.join('');
}
