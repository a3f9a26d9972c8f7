import { parseBoundary, type Boundary } from '../core/framing/boundary.js';
import { loadConfig, type TapedeckConfig } from '../core/config/config.js';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS } from './replay-defaults.js';
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
