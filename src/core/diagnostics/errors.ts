import type { ExitCodeValue } from './exit-codes.js';
import { exitCodeFor, type ErrorCode } from './error-codes.js';

export type { ErrorCode } from './error-codes.js';

/** Where in an input file a problem is. Lines are 1-indexed. */
export interface FileLocation {
  file: string;
  line?: number;
}

/**
 * An error a user can act on: a stable code, a message that names the file and
 * line, and the exit code the CLI ends with. Anything else that escapes is a bug.
 */
export class TapedeckError extends Error {
  readonly code: ErrorCode;
  /** Derived from the code (core/diagnostics/error-codes.ts). */
  readonly exitCode: ExitCodeValue;
  readonly location?: FileLocation;
  readonly details?: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { location?: FileLocation; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TapedeckError';
    this.code = code;
    this.exitCode = exitCodeFor(code);
    this.location = options.location;
    this.details = options.details;
  }

  /** "file:line: message", the form editors and CI logs link. */
  describe(): string {
    if (!this.location) return this.message;
    const where = this.location.line ? `${this.location.file}:${this.location.line}` : this.location.file;
    return `${where}: ${this.message}`;
  }
}

export function usageError(message: string, details?: Record<string, unknown>): TapedeckError {
  return new TapedeckError('INVALID_INPUT', message, { details });
}

/** Turns an fs error into a one-line message that names the file. */
export function ioError(file: string, err: unknown): TapedeckError {
  const e = err as NodeJS.ErrnoException;
  const reason =
    e?.code === 'ENOENT' ? 'no such file' :
    e?.code === 'EACCES' ? 'permission denied' :
    e?.code === 'EISDIR' ? 'is a directory' :
    e?.code === 'ENOSPC' ? 'no space left on device' :
    e?.message ?? String(err);
  return new TapedeckError('STORAGE_READ_ERROR', `cannot read: ${reason}`, {
    location: { file },
    cause: err,
  });
}
