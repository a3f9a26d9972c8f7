import { TapedeckError, type FileLocation } from '../diagnostics/errors.js';

/**
 * The bounds that keep any input, however hostile, within memory and time.
 * Each is documented in the README and can be raised with its environment
 * variable; crossing one is a clear exit-2 error naming the file and line
 * (or, for live output, one aggregated drift), never an OOM or a stack trace.
 */
export interface Limits {
  /** Longest line of a tape (bytes): TAPEDECK_MAX_LINE_BYTES. */
  maxLineBytes: number;
  /** Deepest JSON nesting read from a tape or compared: TAPEDECK_MAX_JSON_DEPTH. */
  maxJsonDepth: number;
  /** rows × cols of any screen (header or resize): TAPEDECK_MAX_SCREEN_CELLS. */
  maxScreenCells: number;
  /** Cells allocated by all the resizes of one tape together: TAPEDECK_MAX_RESIZE_CELLS. */
  maxResizeCells: number;
  /** Width × height of a screenshot in pixels: TAPEDECK_MAX_SCREENSHOT_PIXELS. */
  maxScreenshotPixels: number;
  /** Unexpected server messages reported one by one before the rest are counted: TAPEDECK_MAX_UNEXPECTED. */
  maxUnexpectedDrifts: number;
  /** Bytes above which two responses are described, not diffed line by line: TAPEDECK_MAX_DIFF_BYTES. */
  maxDiffBytes: number;
}

const DEFAULTS: Limits = {
  maxLineBytes: 64 * 1024 * 1024,
  maxJsonDepth: 512,
  maxScreenCells: 1_000_000,
  maxResizeCells: 50_000_000,
  maxScreenshotPixels: 40_000_000,
  maxUnexpectedDrifts: 10,
  maxDiffBytes: 256 * 1024,
};

const ENV: Record<keyof Limits, string> = {
  maxLineBytes: 'TAPEDECK_MAX_LINE_BYTES',
  maxJsonDepth: 'TAPEDECK_MAX_JSON_DEPTH',
  maxScreenCells: 'TAPEDECK_MAX_SCREEN_CELLS',
  maxResizeCells: 'TAPEDECK_MAX_RESIZE_CELLS',
  maxScreenshotPixels: 'TAPEDECK_MAX_SCREENSHOT_PIXELS',
  maxUnexpectedDrifts: 'TAPEDECK_MAX_UNEXPECTED',
  maxDiffBytes: 'TAPEDECK_MAX_DIFF_BYTES',
};

/** The limit in force: the environment's value when it is a positive whole number, else the default. */
export function limit(name: keyof Limits): number {
  const raw = process.env[ENV[name]];
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : DEFAULTS[name];
}

export function limitEnvName(name: keyof Limits): string {
  return ENV[name];
}

/** The exit-2 error for a crossed limit, with the variable that raises it. */
export function limitError(name: keyof Limits, what: string, location?: FileLocation): TapedeckError {
  return new TapedeckError('LIMIT', `${what} (limit ${limit(name)}; raise it with ${ENV[name]})`, { location });
}

/**
 * How deep a JSON text nests, counted without parsing (strings skipped), so
 * a hostile document is refused before any recursive walk sees it.
 * Stops counting once past `stopAt`.
 */
export function jsonDepth(text: string, stopAt = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) {
        max = depth;
        if (max > stopAt) return max;
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/** True when the text is JSON-ish and nests deeper than the limit. */
export function tooDeep(text: string): boolean {
  const cap = limit('maxJsonDepth');
  return jsonDepth(text, cap) > cap;
}
