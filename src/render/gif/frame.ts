
/**
 * One GIF frame from two RGBA screens: the rectangle that changed, its pixels
 * as palette indices, and the palette: exact when the rectangle has at most
 * 256 colours (255 beside the transparent index), else the commonest ones
 * exact and the rare rest approximated.
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
  /** False when the rectangle had over 255 colours and was quantised. */
  exact: boolean;
  /** Index 0 is transparent (the pixel shown before stays). */
  transparent: boolean;
}

/**
 * The rectangle's pixels (from `band`, the rows from y0 on) as indices into an
 * exact palette. With the picture shown before (`shown`), pixels that stay the
 * same become transparent (index 0), which shows what is underneath and packs
 * far better. Past 255 colours the rectangle is quantised whole instead.
 */
export function indexRect(band: Uint32Array, width: number, y0: number, rect: Rect, shown: Uint32Array | null): IndexedFrame {
  const n = rect.width * rect.height;
  const index = new Uint8Array(n);
  const colours = new Map<number, number>();
  // Index 0 is kept for transparency when something is shown already.
  const palette: number[][] = shown ? [[0, 0, 0]] : [];
  let lastColour = -1;
  let lastIndex = 0;
  let i = 0;
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    const row = (y - y0) * width;
    const old = y * width;
    for (let x = rect.x; x < rect.x + rect.width; x++) {
      const p = band[row + x];
      if (shown && shown[old + x] === p) {
        index[i++] = 0;
        continue;
      }
      const c = p & 0xffffff; // little-endian RGBA: 0xAABBGGRR; alpha is always 255
      if (c !== lastColour) {
        let k = colours.get(c);
        if (k === undefined) {
          if (palette.length === 256) return quantised(band, width, y0, rect, shown);
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
  return { ...rect, index, palette, exact: true, transparent: shown !== null };
}

/**
 * Past 255 colours: the 255 commonest colours of the changed pixels exactly,
 * the rare rest (antialiasing steps, mostly) as their nearest of those. The
 * canvas remembers what it showed, so the next frame sets those pixels right.
 */
function quantised(band: Uint32Array, width: number, y0: number, rect: Rect, shown: Uint32Array | null): IndexedFrame {
  const counts = new Map<number, number>();
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    const row = (y - y0) * width;
    const old = y * width;
    for (let x = rect.x; x < rect.x + rect.width; x++) {
      const p = band[row + x];
      if (shown && shown[old + x] === p) continue;
      const c = p & 0xffffff;
      counts.set(c, (counts.get(c) ?? 0) + 1);
    }
  }
  const reserved = shown ? 1 : 0;
  const kept = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 256 - reserved).map(([c]) => c);
  const palette: number[][] = [...(shown ? [[0, 0, 0]] : []), ...kept.map((c) => [c & 0xff, (c >> 8) & 0xff, (c >> 16) & 0xff])];
  const indexOf = new Map<number, number>(kept.map((c, i) => [c, i + reserved]));
  const nearest = (c: number): number => {
    let best = reserved;
    let bestD = Infinity;
    const r = c & 0xff;
    const g = (c >> 8) & 0xff;
    const b = (c >> 16) & 0xff;
    for (let i = reserved; i < palette.length; i++) {
      const [pr, pg, pb] = palette[i];
      const d = (pr - r) ** 2 + (pg - g) ** 2 + (pb - b) ** 2;
      if (d < bestD) [best, bestD] = [i, d];
    }
    indexOf.set(c, best);
    return best;
  };
  const index = new Uint8Array(rect.width * rect.height);
  let i = 0;
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    const row = (y - y0) * width;
    const old = y * width;
    for (let x = rect.x; x < rect.x + rect.width; x++) {
      const p = band[row + x];
      if (shown && shown[old + x] === p) {
        index[i++] = 0;
        continue;
      }
      const c = p & 0xffffff;
      index[i++] = indexOf.get(c) ?? nearest(c);
    }
  }
  return { ...rect, index, palette, exact: false, transparent: shown !== null };
}
