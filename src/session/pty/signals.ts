import { constants } from 'node:os';
import { TapedeckError } from '../../core/diagnostics/errors.js';

/** Signals a test may send to a terminal program (seed 002 §12). */
export const SUPPORTED_SIGNALS = [
  'SIGHUP', 'SIGINT', 'SIGQUIT', 'SIGKILL', 'SIGTERM', 'SIGUSR1', 'SIGUSR2', 'SIGCONT', 'SIGSTOP',
  'SIGTSTP', 'SIGWINCH', 'SIGALRM', 'SIGPIPE', 'SIGTTIN', 'SIGTTOU',
] as const;
export type SignalName = (typeof SUPPORTED_SIGNALS)[number];

/** Accepts "INT", "sigint", "SIGINT"; rejects anything not in the list or not on this platform. */
export function normaliseSignal(name: string): SignalName {
  const upper = name.trim().toUpperCase();
  const full = (upper.startsWith('SIG') ? upper : `SIG${upper}`) as SignalName;
  const platform = constants.signals as Record<string, number | undefined>;
  if (!(SUPPORTED_SIGNALS as readonly string[]).includes(full) || platform[full] === undefined) {
    throw new TapedeckError('INVALID_SIGNAL', `unsupported signal ${JSON.stringify(name)}; use one of ${SUPPORTED_SIGNALS.map((s) => s.slice(3)).join(', ')}`, {
      details: { signal: name },
    });
  }
  return full;
}
