import type { MaskRect } from '../text/mask.js';

/** A mask as a config file gives it: a regex (or its source) over each screen line, or a cell rectangle. */
export type ConfigMask = RegExp | string | MaskRect;

/** Pixel allowances, with Playwright's toHaveScreenshot (and vitest's toMatchScreenshot comparator) names. */
export interface PixelDefaults {
  threshold?: number;
  maxDiffPixels?: number;
  maxDiffPixelRatio?: number;
}

/** Defaults per matcher: what a call leaves out comes from here (a call's own options win). */
export interface MatcherDefaults {
  toMatchScreen?: { styles?: boolean; mask?: ConfigMask[]; stableMs?: number; timeoutMs?: number };
  toMatchScreenshot?: PixelDefaults & { profile?: string; cursor?: 'auto' | 'show' | 'hide'; mask?: ConfigMask[]; stableMs?: number; timeoutMs?: number };
  toContainText?: { timeoutMs?: number };
  toHaveText?: { timeoutMs?: number };
  toHaveCursorAt?: { timeoutMs?: number };
  toHaveExited?: { timeoutMs?: number };
  toMatchExchange?: { timeoutMs?: number; ignoreKeyOrder?: boolean };
}

/** tapedeck.config.ts (or .json): the same keys as the JSON form, typed. */
export interface TapedeckUserConfig {
  /** JSONPaths ignored on both sides of every protocol comparison. */
  ignore?: string[];
  /** "REGEX=REPLACEMENT" filters, or { pattern, replacement }. */
  filter?: (string | { pattern: string; replacement: string })[];
  timeoutMs?: number;
  boundary?: string;
  /** The goldens folder (default goldens/). */
  goldens?: string;
  mask?: ConfigMask[];
  scoped?: { method?: string; tool?: string; op?: string; ignore?: string[]; filter?: (string | { pattern: string; replacement: string })[]; ignoreKeyOrder?: boolean }[];
  ignoreKeyOrder?: boolean;
  maxResponseBytes?: number;
  /** Defaults per matcher, as Playwright's `expect.toHaveScreenshot` and vitest's `toMatchScreenshot` config. */
  matchers?: MatcherDefaults;
}

/** `export default defineConfig({ ... })` in tapedeck.config.ts: the identity, for types. */
export function defineConfig(config: TapedeckUserConfig): TapedeckUserConfig {
  return config;
}

/** The matcher names `matchers` takes. */
export const MATCHER_NAMES = ['toMatchScreen', 'toMatchScreenshot', 'toContainText', 'toHaveText', 'toHaveCursorAt', 'toHaveExited', 'toMatchExchange'] as const;
