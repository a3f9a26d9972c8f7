import { constants } from 'node:os';

/** The shell convention for a process killed by a signal: 128 + its number. */
export function signalExitCode(signal: NodeJS.Signals | null): number {
  if (!signal) return 1;
  const n = (constants.signals as Record<string, number>)[signal];
  return n ? 128 + n : 1;
}

/** "exit code 3" / "killed by SIGSEGV", for messages. */
export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal) return `killed by ${signal}`;
  return `exit code ${code ?? 'unknown'}`;
}
