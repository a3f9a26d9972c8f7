import { StreamRedactor } from '../../core/text/stream-redact.js';

/** The tape's redacted values, hidden in the live output as the recorder hid them (within each chunk). */
export function liveRedaction(secrets: readonly string[], env: Record<string, string | undefined>): { outputFilter?: (chunk: Buffer) => Buffer } {
  if (secrets.length === 0) return {};
  const redactor = new StreamRedactor(secrets, env, false);
  return redactor.active ? { outputFilter: (chunk) => redactor.push(chunk) } : {};
}
