import { TapedeckError } from '../core/diagnostics/errors.js';
import { ExitCode } from '../core/diagnostics/exit-codes.js';

/**
 * Seed 002 §21's error catalog and §1.4's exit codes. Every failure an
 * agent-tty command reports carries one of these codes; tapedeck's library
 * errors are mapped onto them at the boundary (toAgentError).
 */
export const ERROR_CODES = [
  'SESSION_NOT_FOUND', 'SESSION_NOT_RUNNING', 'SESSION_ALREADY_DESTROYED', 'HOST_UNREACHABLE', 'HOST_TIMEOUT',
  'INVALID_SESSION_ID', 'INVALID_DIMENSIONS', 'INVALID_SIGNAL', 'INVALID_KEYS', 'INVALID_DURATION', 'INVALID_INPUT',
  'STORAGE_READ_ERROR', 'STORAGE_WRITE_ERROR', 'MANIFEST_VALIDATION_ERROR', 'RPC_ERROR', 'PROTOCOL_ERROR',
  'EXPORT_ERROR', 'REPLAY_ERROR', 'INTERNAL_ERROR',
] as const;
export type AgentErrorCode = (typeof ERROR_CODES)[number];

/** §1.4: tapedeck's exit codes, where 1 means a failed command (tapedeck's "drift"). */
export const AgentExit = { ...ExitCode, failure: ExitCode.drift } as const;

const EXIT_BY_CODE: Record<AgentErrorCode, number> = {
  SESSION_NOT_FOUND: AgentExit.notFound,
  SESSION_NOT_RUNNING: AgentExit.notRunning,
  SESSION_ALREADY_DESTROYED: AgentExit.notRunning,
  HOST_UNREACHABLE: AgentExit.notRunning,
  HOST_TIMEOUT: AgentExit.failure,
  INVALID_SESSION_ID: AgentExit.usage,
  INVALID_DIMENSIONS: AgentExit.usage,
  INVALID_SIGNAL: AgentExit.usage,
  INVALID_KEYS: AgentExit.usage,
  INVALID_DURATION: AgentExit.usage,
  INVALID_INPUT: AgentExit.usage,
  STORAGE_READ_ERROR: AgentExit.failure,
  STORAGE_WRITE_ERROR: AgentExit.failure,
  MANIFEST_VALIDATION_ERROR: AgentExit.failure,
  RPC_ERROR: AgentExit.failure,
  PROTOCOL_ERROR: AgentExit.failure,
  EXPORT_ERROR: AgentExit.exportFailure,
  REPLAY_ERROR: AgentExit.failure,
  INTERNAL_ERROR: AgentExit.failure,
};

/** Codes whose failure may go away on its own (a busy or starting host). */
const RETRYABLE = new Set<AgentErrorCode>(['HOST_TIMEOUT', 'HOST_UNREACHABLE']);

export interface AgentErrorBody {
  code: AgentErrorCode;
  message: string;
  retryable: boolean;
  details: Record<string, unknown>;
}

export class AgentError extends Error {
  readonly code: AgentErrorCode;
  readonly exitCode: number;
  readonly details: Record<string, unknown>;

  constructor(code: AgentErrorCode, message: string, details: Record<string, unknown> = {}, exitCode?: number) {
    super(message);
    this.name = 'AgentError';
    this.code = code;
    this.details = details;
    this.exitCode = exitCode ?? EXIT_BY_CODE[code];
  }

  body(): AgentErrorBody {
    return { code: this.code, message: this.message, retryable: RETRYABLE.has(this.code), details: this.details };
  }

  /** Rebuilds an error a host sent over the socket. */
  static fromBody(body: { code?: string; message?: string; details?: Record<string, unknown> }, exitCode?: number): AgentError {
    const code = (ERROR_CODES as readonly string[]).includes(body.code ?? '') ? (body.code as AgentErrorCode) : 'RPC_ERROR';
    return new AgentError(code, body.message ?? 'the session host failed', body.details ?? {}, exitCode);
  }
}

export function exitCodeFor(code: AgentErrorCode): number {
  return EXIT_BY_CODE[code];
}

/** tapedeck library codes without a seed name of their own → the nearest catalog code. */
const LIBRARY_CODES: Record<string, AgentErrorCode> = {
  CONFIG: 'INVALID_INPUT',
  SPAWN_FAILED: 'INVALID_INPUT',
  INVALID_RENDER_PROFILE: 'INVALID_INPUT',
  WAIT_TIMEOUT: 'HOST_TIMEOUT',
};

/** Any thrown value as an AgentError, keeping tapedeck's exit code where the seed has the same meaning. */
export function toAgentError(err: unknown): AgentError {
  if (err instanceof AgentError) return err;
  if (err instanceof TapedeckError) {
    const code: AgentErrorCode = (ERROR_CODES as readonly string[]).includes(err.code)
      ? (err.code as AgentErrorCode)
      : LIBRARY_CODES[err.code] ?? (err.exitCode === AgentExit.rendererUnavailable ? 'INTERNAL_ERROR' : err.exitCode === AgentExit.usage ? 'INVALID_INPUT' : 'INTERNAL_ERROR');
    // Renderer and environment failures keep their own exit codes (6, 8): the seed has no catalog name for them yet.
    const keep = err.exitCode === AgentExit.rendererUnavailable || err.exitCode === AgentExit.environment || err.exitCode === AgentExit.exportFailure;
    const details: Record<string, unknown> = { ...(err.details ?? {}), ...(err.location ? { file: err.location.file, ...(err.location.line ? { line: err.location.line } : {}) } : {}) };
    if (!(ERROR_CODES as readonly string[]).includes(err.code)) details.tapedeckCode = err.code;
    return new AgentError(code, err.describe(), details, keep ? err.exitCode : undefined);
  }
  const e = err as Error;
  return new AgentError('INTERNAL_ERROR', `internal error: ${e?.message ?? String(err)}`);
}
