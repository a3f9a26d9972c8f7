import { parseBoundary, type Boundary } from '../core/framing/boundary.js';
import { loadConfig, type TapedeckConfig } from '../core/config/config.js';
import { usageError } from '../core/diagnostics/errors.js';
import type { MaskRect } from '../core/text/mask.js';
import { compileRegex, Normaliser, parseFilter, validateJsonPath } from '../core/text/normalise.js';

/**
 * Replay settings from the three places they come from: tapedeck.config.json,
 * then the CLI flags or matcher options on top (lists add, values override).
 * The CLI (replay, serve) and the matchers all resolve them here.
 */
export interface ReplaySettingsInput {
  /** An explicit config file (default ./tapedeck.config.json when present). */
  config?: string;
  cwd?: string;
  boundary?: Boundary | string;
  timeoutMs?: number;
  /** JSONPaths ignored on both sides, added to the config's. */
  ignore?: readonly string[];
  /** "REGEX=REPLACEMENT" filters, added to the config's. */
  filter?: readonly string[];
  ignoreKeyOrder?: boolean;
  maxResponseBytes?: number;
  /** Terminal masks added to the config's: regexes (or their source) per line, or cell rectangles. */
  mask?: readonly (string | RegExp | MaskRect)[];
}

export interface ReplaySettings {
  config: TapedeckConfig;
  boundary?: Boundary;
  timeoutMs: number;
  normaliser: Normaliser;
  maxResponseBytes: number;
  masks: (RegExp | MaskRect)[];
}

export const DEFAULT_TIMEOUT_MS = 10_000;
/** A response larger than this is drift, and no more of it is kept. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export function resolveReplaySettings(input: ReplaySettingsInput = {}): ReplaySettings {
  const config = loadConfig(input.config, input.cwd);
  const normaliser = new Normaliser({
    ignore: [...config.ignore, ...(input.ignore ?? []).map(validateJsonPath)],
    filters: [...config.filters, ...(input.filter ?? []).map(parseFilter)],
    ignoreKeyOrder: input.ignoreKeyOrder ?? config.ignoreKeyOrder,
    scoped: config.scoped,
  });
  return {
    config,
    boundary: typeof input.boundary === 'string' ? parseBoundary(input.boundary) : input.boundary ?? config.boundary,
    timeoutMs: input.timeoutMs ?? config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    normaliser,
    maxResponseBytes: input.maxResponseBytes ?? config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    masks: [...config.masks, ...(input.mask ?? []).map((m) => (typeof m === 'string' ? compileRegex(m, 'mask') : m))],
  };
}

/** The one "CMD is required" check for protocol tapes. */
export function requireServerCommand(command: readonly string[] | undefined, verb = 'replay'): readonly string[] {
  if (!command || command.length === 0 || !command[0]) {
    throw usageError(`${verb}: protocol tapes need the server command after --, e.g. tapedeck ${verb} tape.ndjson -- node server.js`);
  }
  return command;
}
