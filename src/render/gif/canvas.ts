import type { CellColor, ScreenSnapshot, SnapshotCell } from '../../session/screen/screen.js';
import type { RenderProfile } from '../profiles.js';
import type { CursorMode } from '../browser/repaint.js';
import { renderScreenRgba } from '../raster/index.js';
import type { IndexedFrame, Rect } from './frame.js';

/**
 * The GIF's picture of the screen, kept up to date row band by row band: the
 * raster renderer paints every cell as a tile of exactly its cell (nothing
 * bleeds into a neighbour), so drawing only the rows that changed, from a
 * snapshot cut down to them, gives the very pixels a full render would.
 * The test holds every frame to a full render of its moment.
 */
export interface CanvasUpdate {
  /** The rows band drawn, in pixels: y0 and its height; band holds its new pixels (width x height). */
  y0: number;
  height: number;
  band: Uint32Array;
}

export class GifCanvas {
  width = 0;
  height = 0;
  /** The picture as shown now (after the last update was applied). */
  pixels: Uint32Array | null = null;
  private prev: ScreenSnapshot | null = null;
  private cell = { width: 0, height: 0 };
  private pad = 0;
  /** Cell rows shown in quantised colours: drawn again with the next frame, to be set right when its colours allow. */
  private approx: { first: number; last: number } | null = null;

  constructor(
    private readonly profile: RenderProfile,
    private readonly cursor: CursorMode | undefined,
    private readonly file: string,
  ) {}

  /** True while some pixels show quantised colours. */
  get approximate(): boolean {
    return this.approx !== null;
  }

  /** The band of rows whose pixels may differ from the picture, drawn; null when no row changed. */
  draw(snap: ScreenSnapshot): CanvasUpdate | null {
    const prev = this.prev;
    this.prev = snap;
    if (!this.pixels || !prev || prev.rows !== snap.rows || prev.cols !== snap.cols) return this.full(snap);
    let first = -1;
    let last = -1;
    const cursorRows = new Set<number>();
    if (cursorChanged(prev, snap)) cursorRows.add(prev.cursor.row).add(snap.cursor.row);
    const approx = this.approx;
    for (let r = 0; r < snap.rows; r++) {
      if (cursorRows.has(r) || (approx && r >= approx.first && r <= approx.last) || !rowEqual(prev.cells![r], snap.cells![r])) {
        if (first < 0) first = r;
        last = r;
      }
    }
    if (first < 0) return null;
    const rows = last - first + 1;
    const cur = snap.cursor;
    const forced = this.cursor === 'show' ? true : this.cursor === 'hide' ? false : cur.visible;
    const sub: ScreenSnapshot = {
      ...snap,
      rows,
      cells: snap.cells!.slice(first, last + 1),
      visibleLines: snap.visibleLines.slice(first, last + 1),
      cursor: { row: cur.row - first, col: cur.col, visible: forced && cur.row >= first && cur.row <= last },
    };
    const image = renderScreenRgba(sub, { profile: this.profile, cursor: 'auto', source: { file: this.file } });
    const src = asU32(image.data);
    const y0 = this.pad + first * this.cell.height;
    const height = rows * this.cell.height;
    return { y0, height, band: src.subarray(this.pad * this.width, (this.pad + height) * this.width) };
  }

  /** The rectangle where the band differs from the picture, or null. */
  changed(u: CanvasUpdate): Rect | null {
    const cur = this.pixels;
    const w = this.width;
    if (!cur) return { x: 0, y: 0, width: this.width, height: this.height };
    let top = -1;
    let bottom = -1;
    let left = w;
    let right = -1;
    for (let y = 0; y < u.height; y++) {
      const o = (u.y0 + y) * w;
      const b = y * w;
      let x = 0;
      while (x < w && cur[o + x] === u.band[b + x]) x++;
      if (x === w) continue;
      if (top < 0) top = y;
      bottom = y;
      if (x < left) left = x;
      let xr = w - 1;
      while (xr > right && cur[o + xr] === u.band[b + xr]) xr--;
      if (xr > right) right = xr;
    }
    if (top < 0) return null;
    return { x: left, y: u.y0 + top, width: right - left + 1, height: bottom - top + 1 };
  }

  /** The picture after the frame: the band's pixels, or for a quantised frame the colours the GIF shows. */
  apply(u: CanvasUpdate, frame: IndexedFrame): void {
    if (!this.pixels) this.pixels = u.band.slice();
    else this.pixels.set(u.band, u.y0 * this.width);
    const rowsOf = (y: number) => Math.max(0, Math.floor((y - this.pad) / this.cell.height));
    if (frame.exact) {
      // Every pixel of the band is now exact: what was approximate there no longer is.
      if (this.approx && rowsOf(u.y0) <= this.approx.first && rowsOf(u.y0 + u.height - 1) >= this.approx.last) this.approx = null;
      return;
    }
    const colours = frame.palette.map(([r, g, b]) => (0xff000000 | (b << 16) | (g << 8) | r) >>> 0);
    let i = 0;
    for (let y = frame.y; y < frame.y + frame.height; y++) {
      for (let x = frame.x; x < frame.x + frame.width; x++) this.pixels[y * this.width + x] = colours[frame.index[i++]];
    }
    const first = rowsOf(frame.y);
    const last = rowsOf(frame.y + frame.height - 1);
    this.approx = this.approx ? { first: Math.min(first, this.approx.first), last: Math.max(last, this.approx.last) } : { first, last };
  }

  private full(snap: ScreenSnapshot): CanvasUpdate {
    const forced = this.cursor;
    const image = renderScreenRgba(snap, { profile: this.profile, cursor: forced, source: { file: this.file } });
    const src = asU32(image.data);
    if (!this.pixels) {
      this.width = image.width;
      this.height = image.height;
      this.cell = image.cell;
      this.pad = image.padding.y;
      return { y0: 0, height: image.height, band: src };
    }
    // A resized terminal: the GIF keeps its first size, cropped, or padded with the background (its top-left pixel, padding).
    const band = new Uint32Array(this.width * this.height).fill(src[0]);
    const w = Math.min(this.width, image.width);
    for (let y = 0; y < Math.min(this.height, image.height); y++) band.set(src.subarray(y * image.width, y * image.width + w), y * this.width);
    this.prev = null; // rows no longer line up with the picture: the next frame is drawn whole
    return { y0: 0, height: this.height, band };
  }
}

function asU32(data: Uint8Array): Uint32Array {
  return data.byteOffset % 4 === 0 ? new Uint32Array(data.buffer, data.byteOffset, data.length >> 2) : new Uint32Array(data.slice().buffer);
}

function cursorChanged(a: ScreenSnapshot, b: ScreenSnapshot): boolean {
  return a.cursor.row !== b.cursor.row || a.cursor.col !== b.cursor.col || a.cursor.visible !== b.cursor.visible || a.cursorStyle !== b.cursorStyle;
}

function colourEqual(a: CellColor | undefined, b: CellColor | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return a.kind === b.kind && a.index === b.index && a.rgb === b.rgb;
}

function rowEqual(a: SnapshotCell[] | undefined, b: SnapshotCell[] | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue; // snapshots share the cells of a (character, style)
    if (
      x.char !== y.char || x.width !== y.width || x.bold !== y.bold || x.dim !== y.dim || x.italic !== y.italic || x.underline !== y.underline ||
      x.inverse !== y.inverse || x.invisible !== y.invisible || x.strikethrough !== y.strikethrough || x.overline !== y.overline ||
      x.underlineStyle !== y.underlineStyle || !colourEqual(x.fg, y.fg) || !colourEqual(x.bg, y.bg) || !colourEqual(x.underlineColor, y.underlineColor)
    ) return false;
  }
  return true;
}
