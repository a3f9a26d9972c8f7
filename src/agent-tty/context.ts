/**
 * What every agent-tty operation runs with: the resolved seed 002 §3 settings and where this call
 * reads its environment and writes its diagnostics. The CLI resolves it (cli/agent-tty/config.ts).
 */
import type { CliIO } from '../core/io.js';

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface AgentContext {
  json: boolean;
  home: string;
  logLevel: LogLevel;
  /** Undefined: each command's own default. */
  timeoutMs?: number;
  profile?: string;
  color: boolean;
  keepTemp: boolean;
  browserPath?: string;
  /** Where this call reads its environment and working directory, and writes its diagnostics (the process's, or a test's buffers). */
  io: CliIO;
}

