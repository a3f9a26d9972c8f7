import { usageError } from '../core/diagnostics/errors.js';

/**
 * What a protocol replay needs of the replay settings without a config file:
 * the defaults and the one "CMD is required" check. Apart from settings.ts, so
 * a library replay (replayProtocolTape) does not load the config reader.
 */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** A response larger than this is drift, and no more of it is kept. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** The one "CMD is required" check for protocol tapes. */
export function requireServerCommand(command: readonly string[] | undefined, verb = 'replay'): readonly string[] {
  if (!command || command.length === 0 || !command[0]) {
    throw usageError(`${verb}: protocol tapes need the server command after --, e.g. tapedeck ${verb} tape.ndjson -- node server.js`);
  }
  return command;
}
