import type { Mask } from './types.js';

/**
 * Characters drawn from geometry instead of a font, so that neighbouring cells
 * join without gaps whatever the font's metrics: box drawing (U+2500–257F),
 * block elements (U+2580–259F), braille (U+2800–28FF) and the Powerline
 * separators (U+E0B0–E0BF, which no pinned font has). undefined: not one of them.
 */
/**
 * The cross-sections of the font's own line characters (─ ━ ═ across, │ ┃ ║
 * along), one coverage value per pixel: lines are drawn with the font's
 * thickness and position (as a browser draws them with the font), extended
 * geometrically so that every arm reaches its neighbour.
 */
export interface Strokes {
  /** Per weight 1 light, 2 heavy, 3 double: coverage by row of a horizontal line. */
  across: Record<1 | 2 | 3, Uint8Array>;
  /** Coverage by column of a vertical line. */
  along: Record<1 | 2 | 3, Uint8Array>;
}

export function geometricMask(cp: number, width: number, height: number, bold: boolean, strokes: () => Strokes): Mask | null | undefined {
  const m = new Canvas(width, height);
  if (cp >= 0x2500 && cp <= 0x257f) boxDrawing(m, cp, bold, strokes());
  else if (cp >= 0x2580 && cp <= 0x259f) block(m, cp);
  else if (cp >= 0x2800 && cp <= 0x28ff) braille(m, cp - 0x2800);
  else if (cp >= 0xe0b0 && cp <= 0xe0bf) powerline(m, cp);
  else return undefined;
  return m.mask();
}

class Canvas {
  readonly alpha: Uint8Array;
  constructor(readonly w: number, readonly h: number) {
    this.alpha = new Uint8Array(w * h);
  }
  rect(x0: number, y0: number, x1: number, y1: number, a = 255): void {
    for (let y = Math.max(0, Math.round(y0)); y < Math.min(this.h, Math.round(y1)); y++) {
      for (let x = Math.max(0, Math.round(x0)); x < Math.min(this.w, Math.round(x1)); x++) this.alpha[y * this.w + x] = Math.max(this.alpha[y * this.w + x], a);
    }
  }
  /** Coverage of a shape given by inside(x, y) in pixel units, 4x4 samples per pixel. */
  shape(inside: (x: number, y: number) => boolean): void {
    for (let y = 0; y < this.h; y++) {
      for (let x = 0; x < this.w; x++) {
        let n = 0;
        for (let sy = 0; sy < 4; sy++) for (let sx = 0; sx < 4; sx++) if (inside(x + (sx + 0.5) / 4, y + (sy + 0.5) / 4)) n++;
        if (n) this.alpha[y * this.w + x] = Math.max(this.alpha[y * this.w + x], Math.round((n * 255) / 16));
      }
    }
  }
  mask(): Mask | null {
    return this.alpha.some((a) => a > 0) ? { width: this.w, height: this.h, alpha: this.alpha } : null;
  }
}

// Per box-drawing character U+2500–257F: weights up, right, down, left (0 none, 1 light, 2 heavy, 3 double);
// "d" dashed (the digit after: 2, 3 or 4 dashes, then h/v and l/h weight), "a" arcs, "x" diagonals.
const BOX = (
  '0101 0202 1010 2020 d3hl d3hh d3vl d3vh d4hl d4hh d4vl d4vh 0110 0210 0120 0220 ' +
  '0011 0012 0021 0022 1100 1200 2100 2200 1001 1002 2001 2002 1110 1210 2110 1120 ' +
  '2120 2210 1220 2220 1011 1012 2011 1021 2021 2012 1022 2022 0111 0112 0211 0212 ' +
  '0121 0122 0221 0222 1101 1102 1201 1202 2101 2102 2201 2202 1111 1112 1211 1212 ' +
  '2111 1121 2121 2112 2211 1122 1221 2212 1222 2122 2221 2222 d2hl d2hh d2vl d2vh ' +
  '0303 3030 0310 0130 0330 0013 0031 0033 1300 3100 3300 1003 3001 3003 1310 3130 ' +
  '3330 1013 3031 3033 0313 0131 0333 1303 3101 3303 1313 3131 3333 a a a ' +
  'a x x x 0001 1000 0100 0010 0002 2000 0200 0020 0201 1020 0102 2010'
).split(' ');

function boxDrawing(m: Canvas, cp: number, bold: boolean, strokes: Strokes): void {
  const code = BOX[cp - 0x2500];
  const cover = (profile: Uint8Array) => profile.reduce((sum, a) => sum + a, 0) / 255;
  const light = Math.max(1, cover(strokes.across[1]));
  const cx = Math.floor(m.w / 2);
  const cy = Math.floor(m.h / 2);
  if (code === 'a') return arc(m, cp, light, cx, cy);
  if (code === 'x') return diagonal(m, cp, light);
  if (code[0] === 'd') {
    const n = Number(code[1]);
    const weight = code[3] === 'h' ? 2 : 1;
    if (code[2] === 'h') {
      for (let i = 0; i < n; i++) hLine(m, strokes.across[weight], (i * m.w) / n, ((i + 1) * m.w) / n - Math.max(1, m.w / (n * 4)));
    } else {
      for (let i = 0; i < n; i++) vLine(m, strokes.along[weight], (i * m.h) / n, ((i + 1) * m.h) / n - Math.max(1, m.h / (n * 4)));
    }
    return;
  }
  const [up, right, down, left] = [...code].map(Number) as Array<0 | 1 | 2 | 3>;
  // Each arm reaches over the whole width of the strokes across its end, so joins have no notch.
  const vert = [up, down].filter((w) => w > 0).map((w) => strokes.along[w as 1 | 2 | 3]);
  const horiz = [left, right].filter((w) => w > 0).map((w) => strokes.across[w as 1 | 2 | 3]);
  const [vx0, vx1] = extent(vert, cx);
  const [hy0, hy1] = extent(horiz, cy);
  if (left) hLine(m, strokes.across[left], 0, vert.length ? vx1 : cx + 1);
  if (right) hLine(m, strokes.across[right], vert.length ? vx0 : cx, m.w);
  if (up) vLine(m, strokes.along[up], 0, horiz.length ? hy1 : cy + 1);
  if (down) vLine(m, strokes.along[down], horiz.length ? hy0 : cy, m.h);
  void bold;
}

/** The pixels [first, last + 1) any of the profiles covers; around `centre` when none. */
function extent(profiles: Uint8Array[], centre: number): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const p of profiles) {
    for (let i = 0; i < p.length; i++) {
      if (p[i] > 0) {
        lo = Math.min(lo, i);
        hi = Math.max(hi, i + 1);
      }
    }
  }
  return lo === Infinity ? [centre, centre + 1] : [lo, hi];
}

function hLine(m: Canvas, profile: Uint8Array, x0: number, x1: number): void {
  for (let y = 0; y < m.h; y++) if (profile[y]) m.rect(x0, y, x1, y + 1, profile[y]);
}

function vLine(m: Canvas, profile: Uint8Array, y0: number, y1: number): void {
  for (let x = 0; x < m.w; x++) if (profile[x]) m.rect(x, y0, x + 1, y1, profile[x]);
}

function arc(m: Canvas, cp: number, t: number, cx: number, cy: number): void {
  // The centre of the quarter circle sits diagonally off the cell's centre, towards the two open sides.
  const px = cx + 0.5;
  const py = cy + 0.5;
  const r = Math.min(m.w, m.h) / 2;
  const sx = cp === 0x256d || cp === 0x2570 ? 1 : -1; // arc towards the right
  const sy = cp === 0x256d || cp === 0x256e ? 1 : -1; // arc towards the bottom
  const ox = px + sx * r;
  const oy = py + sy * r;
  m.shape((x, y) => {
    const inQuadrant = (x - ox) * sx <= 0 && (y - oy) * sy <= 0;
    if (inQuadrant) return Math.abs(Math.hypot(x - ox, y - oy) - r) <= t / 2;
    // Straight on past the arc to the cell's edges.
    if ((y - oy) * sy > 0 && Math.abs(x - px) <= t / 2) return true;
    return (x - ox) * sx > 0 && Math.abs(y - py) <= t / 2;
  });
}

function diagonal(m: Canvas, cp: number, t: number): void {
  const len = Math.hypot(m.w, m.h);
  const onLine = (x: number, y: number, rising: boolean) => Math.abs(rising ? m.h * x + m.w * y - m.w * m.h : m.h * x - m.w * y) / len <= t / 2 + 0.15;
  m.shape((x, y) => (cp !== 0x2572 && onLine(x, y, true)) || (cp !== 0x2571 && onLine(x, y, false)));
}

function block(m: Canvas, cp: number): void {
  const { w, h } = m;
  const i = cp - 0x2580;
  if (i === 0) return m.rect(0, 0, w, h / 2);
  if (i >= 1 && i <= 8) return m.rect(0, h - (h * i) / 8, w, h);
  if (i >= 9 && i <= 0xf) return m.rect(0, 0, (w * (16 - i)) / 8, h);
  if (i === 0x10) return m.rect(w / 2, 0, w, h);
  if (i >= 0x11 && i <= 0x13) return shade(m, i - 0x10);
  if (i === 0x14) return m.rect(0, 0, w, h / 8);
  if (i === 0x15) return m.rect(w - w / 8, 0, w, h);
  // Quadrants: bits upper-left, upper-right, lower-left, lower-right.
  const quads = [0b0010, 0b0001, 0b1000, 0b1011, 0b1001, 0b1110, 0b1101, 0b0100, 0b0110, 0b0111][i - 0x16];
  if (quads & 0b1000) m.rect(0, 0, w / 2, h / 2);
  if (quads & 0b0100) m.rect(w / 2, 0, w, h / 2);
  if (quads & 0b0010) m.rect(0, h / 2, w / 2, h);
  if (quads & 0b0001) m.rect(w / 2, h / 2, w, h);
}

/** Light, medium and dark shade as 1-in-4, 2-in-4 and 3-in-4 pixel patterns (as the fonts draw them). */
function shade(m: Canvas, level: number): void {
  for (let y = 0; y < m.h; y++) {
    for (let x = 0; x < m.w; x++) {
      const on = level === 1 ? x % 2 === 0 && y % 2 === 0 : level === 2 ? (x + y) % 2 === 0 : !(x % 2 === 1 && y % 2 === 1);
      if (on) m.alpha[y * m.w + x] = 255;
    }
  }
}

function braille(m: Canvas, bits: number): void {
  // Dots 1-3 and 7 in the left column, 4-6 and 8 in the right, top to bottom.
  const dots: Array<[number, number]> = [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [0, 3], [1, 3]];
  const r = Math.max(0.8, Math.min(m.w / 4, m.h / 8) * 0.75);
  const centres = dots.filter((_, i) => bits & (1 << i)).map(([c, row]) => [(m.w * (1 + 2 * c)) / 4, (m.h * (1 + 2 * row)) / 8] as const);
  if (centres.length) m.shape((x, y) => centres.some(([cx, cy]) => Math.hypot(x - cx, y - cy) <= r));
}

function powerline(m: Canvas, cp: number): void {
  const { w, h } = m;
  const t = Math.max(1, Math.round(w / 9));
  const near = (x: number, y: number, ax: number, ay: number, bx: number, by: number) => {
    const len = Math.hypot(bx - ax, by - ay);
    return Math.abs((by - ay) * x - (bx - ax) * y + bx * ay - by * ax) / len <= t / 2 + 0.15;
  };
  const ellipse = (x: number, y: number, ox: number) => ((x - ox) / w) ** 2 + ((y - h / 2) / (h / 2)) ** 2;
  const shapes: Record<number, (x: number, y: number) => boolean> = {
    0xe0b0: (x, y) => x <= (w * (h / 2 - Math.abs(y - h / 2))) / (h / 2),
    0xe0b1: (x, y) => (y <= h / 2 ? near(x, y, 0, 0, w, h / 2) : near(x, y, w, h / 2, 0, h)),
    0xe0b2: (x, y) => w - x <= (w * (h / 2 - Math.abs(y - h / 2))) / (h / 2),
    0xe0b3: (x, y) => (y <= h / 2 ? near(x, y, w, 0, 0, h / 2) : near(x, y, 0, h / 2, w, h)),
    0xe0b4: (x, y) => ellipse(x, y, 0) <= 1,
    0xe0b5: (x, y) => Math.abs(Math.sqrt(ellipse(x, y, 0)) - 1) * Math.min(w, h / 2) <= t / 2 + 0.15,
    0xe0b6: (x, y) => ellipse(x, y, w) <= 1,
    0xe0b7: (x, y) => Math.abs(Math.sqrt(ellipse(x, y, w)) - 1) * Math.min(w, h / 2) <= t / 2 + 0.15,
    0xe0b8: (x, y) => y * w >= x * h,
    0xe0b9: (x, y) => near(x, y, 0, 0, w, h),
    0xe0ba: (x, y) => y * w >= (w - x) * h,
    0xe0bb: (x, y) => near(x, y, 0, h, w, 0),
    0xe0bc: (x, y) => y * w <= (w - x) * h,
    0xe0bd: (x, y) => near(x, y, 0, h, w, 0),
    0xe0be: (x, y) => y * w <= x * h,
    0xe0bf: (x, y) => near(x, y, 0, 0, w, h),
  };
  m.shape(shapes[cp]);
}
