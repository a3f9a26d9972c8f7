import { LOG_LEVELS, type LogLevel } from './context.js';

/**
 * --log-level: diagnostics on stderr (never stdout, which carries the
 * envelope). The host writes the same lines to its host.log.
 */
export function logAt(threshold: LogLevel, level: LogLevel, message: string, stream: { write(text: string): unknown } = process.stderr): void {
  if (LOG_LEVELS.indexOf(level) > LOG_LEVELS.indexOf(threshold)) return;
  stream.write(`agent-tty ${level}: ${message}\n`);
}

/** The host's level: what the creating CLI ran with (passed down in its environment). */
export function hostLogLevel(): LogLevel {
  const v = process.env.AGENT_TTY_LOG_LEVEL;
  return (LOG_LEVELS as readonly string[]).includes(v ?? '') ? (v as LogLevel) : 'warn';
}
