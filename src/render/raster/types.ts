/** The shapes the raster renderer's parts pass each other. */
export interface Mask {
  width: number;
  height: number;
  /** Coverage 0–255, row by row. */
  alpha: Uint8Array;
}

export interface CellMetrics {
  fontSize: number;
  width: number;
  height: number;
  /** Baseline from the cell's top, in (fractional) pixels. */
  baseline: number;
  underlineY: number;
  underlineThickness: number;
  strikeY: number;
  strikeThickness: number;
}
