import { placeholdersIn, redact } from '../../core/text/redact.js';
import { oneLine } from '../../core/text/terminal-safe.js';
import type { ProtocolTape } from '../../tape/protocol/tape.js';

/**
 * How serve's log lines quote requests and tape text: the tape's secrets
 * (its {{tapedeck.env.NAME}} placeholders) hidden again, and control bytes
 * shown, never sent to the terminal. Requests come from any client.
 */
export function serveLogText(tape: ProtocolTape, env: NodeJS.ProcessEnv): (text: string) => string {
  const secrets = [...new Set(tape.pairs.flatMap((p) => placeholdersIn(p.request + p.response)))];
  return (text: string) => oneLine(redact(text, secrets, env));
}
