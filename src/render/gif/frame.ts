import { applyPalette, quantize } from 'gifenc';

/**
 * One GIF frame from two RGBA screens: the rectangle that changed, its pixels
 * as palette indices, and the palette: exact when the rectangle has at most
 * 256 colours (a terminal screen nearly always does), else quantised by
 * gifenc's PnnQuant.
 */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface IndexedFrame extends Rect {
  index: Uint8Array;
  palette: number[][];
  /** False when the rectangle had over 256 colours and was quantised. */
  exact: boolean;
}

/** The bounding box of the pixels that differ, or null when none do. Both images are width x height. */
export function changedRect(prev: Uint32Array | null, next: Uint32Array, width: number, height: number): Rect | null {
  if (!prev) return { x: 0, y: 0, width, height };
  let top = -1;
  let bottom = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      if (prev[row + x] !== next[row + x]) {
        if (top < 0) top = y;
        bottom = y;
        break;
      }
    }
  }
  if (top < 0) return null;
  let left = width;
  let right = -1;
  for (let y = top; y <= bottom; y++) {
    const row = y * width;
    for (let x = 0; x < left; x++) {
      if (prev[row + x] !== next[row + x]) {
        left = x;
        break;
      }
    }
    for (let x = width - 1; x > right; x--) {
      if (prev[row + x] !== next[row + x]) {
        right = x;
        break;
      }
    }
  }
  return { x: left, y: top, width: right - left + 1, height: bottom - top + 1 };
}

/** The rectangle's pixels as indices into an exact palette, or a quantised one past 256 colours. */
export function indexRect(pixels: Uint32Array, width: number, rect: Rect): IndexedFrame {
  const n = rect.width * rect.height;
  const index = new Uint8Array(n);
  const colours = new Map<number, number>();
  const palette: number[][] = [];
  let lastColour = -1;
  let lastIndex = 0;
  let i = 0;
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    const row = y * width;
    for (let x = rect.x; x < rect.x + rect.width; x++) {
      const c = pixels[row + x] & 0xffffff; // little-endian RGBA: 0xAABBGGRR; alpha is always 255
      if (c !== lastColour) {
        let k = colours.get(c);
        if (k === undefined) {
          if (palette.length === 256) return quantised(pixels, width, rect);
          k = palette.length;
          colours.set(c, k);
          palette.push([c & 0xff, (c >> 8) & 0xff, (c >> 16) & 0xff]);
        }
        lastColour = c;
        lastIndex = k;
      }
      index[i++] = lastIndex;
    }
  }
  // A GIF colour table has 2^n entries: at least two.
  if (palette.length < 2) palette.push([0, 0, 0]);
  return { ...rect, index, palette, exact: true };
}

function quantised(pixels: Uint32Array, width: number, rect: Rect): IndexedFrame {
  const rgba = new Uint8Array(rect.width * rect.height * 4);
  const out = new Uint32Array(rgba.buffer);
  let i = 0;
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    const row = y * width;
    for (let x = rect.x; x < rect.x + rect.width; x++) out[i++] = pixels[row + x];
  }
  const palette = quantize(rgba, 256, { format: 'rgb565' });
  const index = applyPalette(rgba, palette, 'rgb565');
  return { ...rect, index, palette, exact: false };
}
