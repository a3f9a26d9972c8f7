import { TapedeckError } from '../core/diagnostics/errors.js';

export const DEFAULT_WAIT_TIMEOUT_MS = 5000;

export interface WaitOptions {
  /** Give up after this long (default 5000 ms). */
  timeoutMs?: number;
}

export function waitTimeoutError(what: string, timeoutMs: number, screenText: string, details: Record<string, unknown> = {}): TapedeckError {
  return new TapedeckError('WAIT_TIMEOUT', `timed out after ${timeoutMs} ms waiting for ${what}; screen:\n${screenText}`, {
    details: { ...details, timeoutMs, screen: screenText },
  });
}

export function exitedWhileWaitingError(what: string, screenText: string, exit: { exitCode: number | null; signal: string | null }): TapedeckError {
  return new TapedeckError('SESSION_NOT_RUNNING', `program exited (code ${exit.exitCode}${exit.signal ? `, signal ${exit.signal}` : ''}) while waiting for ${what}; screen:\n${screenText}`, {
    details: { ...exit, screen: screenText },
  });
}

export function validateDuration(name: string, ms: number): void {
  if (!Number.isFinite(ms) || ms < 0) {
    throw new TapedeckError('INVALID_DURATION', `${name} must be a non-negative number of milliseconds, got ${ms}`);
  }
}
