import { packHex } from '../raster/compose.js';
import { normaliseHex } from './theme.js';

/**
 * A terminal picture in VHS's frame (ffmpeg.go, draw.go): the image is Width
 * x Height; with MarginFill (VHS's default is its theme background) the
 * window is Width - 2 Margin wide and sits centred on the fill; WindowBar adds
 * a bar of WindowBarSize on top of the window (three dots or rings, left or
 * right) and takes its height from the terminal; BorderRadius rounds the
 * window's corners; the terminal sits Padding inside the window on the theme
 * background. VHS scales its browser canvas into the padded box; tapedeck
 * draws the grid at its own cell size and clips it to the box (no scaling:
 * the pixels stay those of `tapedeck screenshot`).
 */
export interface VhsWindowStyle {
  width: number;
  height: number;
  padding: number;
  margin: number;
  /** "#rrggbb", "" (none) or an image path (drawn as the background colour). */
  marginFill: string;
  windowBar: string;
  windowBarSize: number;
  borderRadius: number;
  /** The theme background "#rrggbb" (the window and the bar). */
  background: string;
}

export interface Picture {
  width: number;
  height: number;
  data: Uint8Array;
}

const DOTS = ['#ff4f4d', '#febb00', '#00cc1d'];
const RING = '#333333';

export interface WindowLayout {
  /** The window's box in the image (bar included). */
  x: number;
  y: number;
  width: number;
  height: number;
  bar: number;
  /** Where the terminal grid's top-left pixel goes, and the box it is clipped to. */
  grid: { x: number; y: number; width: number; height: number };
}

export function windowLayout(s: VhsWindowStyle): WindowLayout {
  const fill = s.marginFill !== '';
  const bar = s.windowBar ? s.windowBarSize : 0;
  const termW = Math.max(0, s.width - (fill ? 2 * s.margin : 0));
  const termH = Math.max(0, s.height - (fill ? 2 * s.margin : 0) - bar);
  const x = Math.floor((s.width - termW) / 2);
  const y = Math.floor((s.height - termH - bar) / 2);
  const grid = { x: x + s.padding, y: y + bar + s.padding, width: Math.max(0, termW - 2 * s.padding), height: Math.max(0, termH - 2 * s.padding) };
  return { x, y, width: termW, height: termH + bar, bar, grid };
}

/** The frame around a terminal image (RGBA, any size), as a new Width x Height RGBA image. */
export class VhsWindow {
  readonly layout: WindowLayout;
  /** The frame without the terminal: the fill, window, bar and corners, drawn once. */
  private readonly base: Uint32Array;
  private readonly bg: number;

  constructor(readonly style: VhsWindowStyle) {
    this.layout = windowLayout(style);
    const { width, height } = style;
    this.bg = packHex(style.background);
    const fillHex = normaliseHex(style.marginFill);
    const outside = fillHex ? packHex(fillHex) : style.marginFill ? this.bg : packHex('#000000');
    const base = new Uint32Array(width * height).fill(outside);
    const L = this.layout;
    for (let y = L.y; y < L.y + L.height; y++) base.fill(this.bg, y * width + L.x, y * width + L.x + L.width);
    if (L.bar) this.drawBar(base);
    if (style.borderRadius > 0) this.roundCorners(base, outside);
    this.base = base;
  }

  /** The frame with the terminal picture drawn into its box (clipped). */
  compose(term: Picture): Picture {
    const { width, height } = this.style;
    const out = this.base.slice();
    const g = this.layout.grid;
    const src = new Uint32Array(term.data.buffer, term.data.byteOffset, term.width * term.height);
    const w = Math.min(term.width, g.width, width - g.x);
    const h = Math.min(term.height, g.height, height - g.y);
    for (let y = 0; y < h; y++) out.set(src.subarray(y * term.width, y * term.width + w), (g.y + y) * width + g.x);
    if (this.style.borderRadius > 0) this.reapplyCorners(out);
    return { width, height, data: new Uint8Array(out.buffer) };
  }

  private corners: { index: number; value: number }[] = [];

  private reapplyCorners(out: Uint32Array): void {
    for (const c of this.corners) out[c.index] = c.value;
  }

  private drawBar(base: Uint32Array): void {
    const s = this.style;
    const L = this.layout;
    const size = s.windowBarSize;
    const right = s.windowBar.endsWith('Right');
    const at = (offset: number) => (right ? L.x + L.width - offset : L.x + offset);
    if (s.windowBar.startsWith('Colorful')) {
      const r = Math.floor(size / 6);
      const gap = Math.floor((size - 2 * r) / 2);
      const space = 2 * r + Math.floor(size / 6);
      DOTS.forEach((hex, i) => this.disc(base, at(gap + r + i * space), L.y + r + gap, r, packHex(hex)));
    } else {
      const outer = Math.floor(size / 5);
      const inner = Math.floor((4 * outer) / 5);
      const gap = Math.floor((size - 2 * outer) / 2);
      const space = 2 * outer + Math.floor(size / 6);
      for (let i = 0; i <= 2; i++) {
        const cx = at(gap + outer + i * space);
        this.disc(base, cx, L.y + outer + gap, outer, packHex(RING));
        this.disc(base, cx, L.y + outer + gap, inner, this.bg);
      }
    }
  }

  /** draw.go's circle: full inside r - 1, a one-pixel antialiased edge. */
  private disc(base: Uint32Array, cx: number, cy: number, r: number, colour: number): void {
    const w = this.style.width;
    for (let y = Math.max(0, cy - r); y < Math.min(this.style.height, cy + r); y++) {
      for (let x = Math.max(0, cx - r); x < Math.min(w, cx + r); x++) {
        const d = Math.hypot(x - cx + 0.5, y - cy + 0.5) - (r - 1);
        const a = d < 0 ? 1 : d <= 1 ? 1 - d : 0;
        if (a > 0) base[y * w + x] = blend(base[y * w + x], colour, a);
      }
    }
  }

  /** Pixels outside the rounded window show what is outside it (draw.go's mask, alpha-merged). */
  private roundCorners(base: Uint32Array, outside: number): void {
    const L = this.layout;
    const w = this.style.width;
    const r = Math.min(this.style.borderRadius, Math.floor(L.width / 2), Math.floor(L.height / 2));
    const centres: [number, number, number, number][] = [
      [L.x, L.y, L.x + r, L.y + r],
      [L.x + L.width - r, L.y, L.x + L.width - r, L.y + r],
      [L.x, L.y + L.height - r, L.x + r, L.y + L.height - r],
      [L.x + L.width - r, L.y + L.height - r, L.x + L.width - r, L.y + L.height - r],
    ];
    for (const [x0, y0, cx, cy] of centres) {
      for (let y = y0; y < y0 + r; y++) {
        for (let x = x0; x < x0 + r; x++) {
          const d = Math.hypot(x - cx + 0.5, y - cy + 0.5) - r;
          const keep = d < 0 ? 1 : d <= 1 ? 1 - d : 0;
          if (keep >= 1) continue;
          const i = y * w + x;
          base[i] = blend(outside, base[i], keep);
          this.corners.push({ index: i, value: base[i] });
        }
      }
    }
  }
}

/** `over` on `under` at coverage a (opaque little-endian RGBA words). */
function blend(under: number, over: number, a: number): number {
  if (a >= 1) return over;
  const mix = (shift: number) => Math.round(((under >>> shift) & 0xff) * (1 - a) + ((over >>> shift) & 0xff) * a) << shift;
  return (0xff000000 | mix(0) | mix(8) | mix(16)) >>> 0;
}
