import { ExitCode, type ExitCodeValue } from './exit-codes.js';

/**
 * Every error code a TapedeckError can carry, with the exit code the CLI ends with.
 * The names follow seed 002's catalog (§21) where it has the same thing. A throw site
 * names the code; the exit code comes from here, so no throw site picks one by hand.
 */
export const ERROR_EXIT_CODES = {
  // Bad input: usage, validation, malformed files (exit 2).
  INVALID_INPUT: ExitCode.usage,
  CONFIG: ExitCode.usage,
  INVALID_DIMENSIONS: ExitCode.usage,
  INVALID_DURATION: ExitCode.usage,
  INVALID_GOLDEN: ExitCode.usage,
  INVALID_KEYS: ExitCode.usage,
  INVALID_RENDER_PROFILE: ExitCode.usage,
  INVALID_SIGNAL: ExitCode.usage,
  MALFORMED_CAST: ExitCode.usage,
  MARKER_NOT_FOUND: ExitCode.usage,
  TAPE_NOT_FOUND: ExitCode.usage,
  GOLDEN_COLLISION: ExitCode.usage,
  GOLDEN_OWNER_UNKNOWN: ExitCode.usage, // a golden matcher could not tell which test it belongs to
  SPAWN_FAILED: ExitCode.usage,
  LIMIT: ExitCode.usage, // an input over a documented limit (core/config/limits.ts)
  UNTRUSTED_TAPE: ExitCode.usage, // a tape from outside the project names a command to run
  LOCKED: ExitCode.usage, // another process kept the file locked
  OPTIONAL_PACKAGE_MISSING: ExitCode.usage, // an optionalDependency a feature needs was not installed (--omit=optional)
  // tapedeck's own bad-input diagnostics (`tapedeck explain TD2xxx`).
  TD2001: ExitCode.usage, // malformed protocol tape
  TD2002: ExitCode.usage, // no tape matches
  TD2003: ExitCode.usage, // the server cannot start
  TD2004: ExitCode.usage, // a secret the tape needs is not set
  TD2006: ExitCode.usage, // the tape changed under a rewrite, or under a replay reading it back
  TD2010: ExitCode.usage, // request body over the limit
  TD2011: ExitCode.usage, // cannot listen
  TD2012: ExitCode.usage, // bearer token needed
  // Files that cannot be read or written (exit 2, as bad input: nothing was compared).
  STORAGE_READ_ERROR: ExitCode.usage,
  STORAGE_WRITE_ERROR: ExitCode.usage,
  // Seed 002's exit codes 4–8.
  SESSION_NOT_RUNNING: ExitCode.notRunning,
  WAIT_TIMEOUT: ExitCode.waitTimeout,
  RENDERER_UNAVAILABLE: ExitCode.rendererUnavailable,
  EXPORT_ERROR: ExitCode.exportFailure,
  ENVIRONMENT: ExitCode.environment,
  NATIVE_MODULE_MISSING: ExitCode.environment,
} as const satisfies Record<string, ExitCodeValue>;

export type ErrorCode = keyof typeof ERROR_EXIT_CODES;

export function exitCodeFor(code: ErrorCode): ExitCodeValue {
  return ERROR_EXIT_CODES[code];
}
