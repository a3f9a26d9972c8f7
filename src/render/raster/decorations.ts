import type { CellMetrics } from './types.js';

export type UnderlineStyle = 'single' | 'double' | 'curly' | 'dotted' | 'dashed';

/** Line decorations of a cell span, as coverage masks of its box (made once per kind and width). */
const cache = new Map<string, Uint8Array>();

export function underlineMask(style: UnderlineStyle, cells: number, m: CellMetrics): Uint8Array {
  return cached(`u${style}${cells}`, cells, m, (set, w) => {
    const y = m.underlineY;
    const t = m.underlineThickness;
    if (style === 'single') for (let x = 0; x < w; x++) for (let k = 0; k < t; k++) set(x, y + k);
    else if (style === 'double') {
      const top = y + t + 1 < m.height ? y : Math.max(0, y - t - 1);
      for (let x = 0; x < w; x++) for (let k = 0; k < t; k++) (set(x, top + k), set(x, top + t + 1 + k));
    } else if (style === 'curly') {
      // One period per cell, about a pixel either side of the underline.
      const amp = Math.max(1, Math.round(m.height / 16));
      const mid = Math.min(y, m.height - 1 - amp);
      for (let x = 0; x < w; x++) {
        const yy = mid + Math.round(amp * Math.sin(((x + 0.5) / m.width) * 2 * Math.PI));
        for (let k = 0; k < t; k++) set(x, yy + k);
      }
    } else if (style === 'dotted') {
      for (let x = 0; x < w; x++) if (x % (2 * t) < t) for (let k = 0; k < t; k++) set(x, y + k);
    } else {
      const dash = Math.max(2, Math.round(m.width * 0.6));
      for (let x = 0; x < w; x++) if (x % m.width < dash) for (let k = 0; k < t; k++) set(x, y + k);
    }
  });
}

export function strikeMask(cells: number, m: CellMetrics): Uint8Array {
  return cached(`s${cells}`, cells, m, (set, w) => {
    for (let x = 0; x < w; x++) for (let k = 0; k < m.strikeThickness; k++) set(x, m.strikeY + k);
  });
}

export function overlineMask(cells: number, m: CellMetrics): Uint8Array {
  return cached(`o${cells}`, cells, m, (set, w) => {
    for (let x = 0; x < w; x++) for (let k = 0; k < m.underlineThickness; k++) set(x, k);
  });
}

function cached(key: string, cells: number, m: CellMetrics, paint: (set: (x: number, y: number) => void, width: number) => void): Uint8Array {
  const full = `${key}:${m.width}x${m.height}:${m.underlineY}:${m.strikeY}`;
  let mask = cache.get(full);
  if (!mask) {
    const w = m.width * cells;
    const alpha = new Uint8Array(w * m.height);
    paint((x, y) => {
      if (x >= 0 && x < w && y >= 0 && y < m.height) alpha[y * w + x] = 255;
    }, w);
    mask = alpha;
    if (cache.size > 256) cache.clear();
    cache.set(full, mask);
  }
  return mask;
}
