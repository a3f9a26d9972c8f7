import { usageError } from '../diagnostics/errors.js';

/**
 * Screen mask rectangles, as the config file and `--mask-rect` declare them.
 * (Regex masks are plain RegExps; render/golden-text.ts applies both kinds.)
 */
export interface MaskRect {
  /** 0-based. */
  row: number;
  col: number;
  width: number;
  /** Rows covered (default 1). */
  height?: number;
}

function wholeNumber(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min;
}

/** Validates a {row, col, width, height?} object; `what` names the source in the message. */
export function parseMaskRect(value: Record<string, unknown>, what: string): MaskRect {
  const unknownKey = Object.keys(value).find((k) => !['row', 'col', 'width', 'height'].includes(k));
  if (unknownKey) throw usageError(`${what}: unknown rectangle key ${JSON.stringify(unknownKey)} (use row, col, width, height)`);
  const { row, col, width, height } = value;
  if (!wholeNumber(row, 0) || !wholeNumber(col, 0)) throw usageError(`${what}: a rectangle needs "row" and "col" as whole numbers >= 0 (0-based)`);
  if (!wholeNumber(width, 1)) throw usageError(`${what}: a rectangle needs "width" as a whole number >= 1`);
  if (height !== undefined && !wholeNumber(height, 1)) throw usageError(`${what}: "height" must be a whole number >= 1`);
  return height === undefined ? { row, col, width } : { row, col, width, height };
}

/** `--mask-rect ROW,COL,WIDTH[,HEIGHT]` (0-based row and column). */
export function parseMaskRectFlag(spec: string): MaskRect {
  const parts = spec.split(',').map((p) => p.trim());
  if (parts.length < 3 || parts.length > 4 || parts.some((p) => !/^\d+$/.test(p))) {
    throw usageError(`--mask-rect expects ROW,COL,WIDTH[,HEIGHT] (whole numbers, 0-based row and column), got ${JSON.stringify(spec)}`);
  }
  const [row, col, width, height] = parts.map(Number);
  return parseMaskRect(height === undefined ? { row, col, width } : { row, col, width, height }, '--mask-rect');
}
