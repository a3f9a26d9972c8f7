import type { FileLocation } from '../../core/diagnostics/errors.js';
import { limit, limitError } from '../../core/config/limits.js';
import type { ScreenSnapshot } from '../../session/screen/screen.js';
import type { ScreenMask } from '../golden-text.js';
import { resolveProfile, type RenderProfile } from '../profiles.js';
import { maskedCells, type CursorMode } from '../browser/repaint.js';
import { compose } from './compose.js';
import { fontPackages } from './fonts.js';
import { cellMetrics, GlyphCache, type CellMetrics } from './glyphs.js';
import { encodeRgbaPng, readPngStamp, type PngStamp } from './png.js';

/**
 * The raster renderer: a screen snapshot (cells, styles, cursor), a render
 * profile (colours, font size, padding) and the pinned fonts, straight to
 * pixels in Node. Skia (@napi-rs/canvas) rasterises each glyph once into a
 * coverage mask; the grid is painted from those masks in JavaScript and
 * written as PNG by node:zlib. No browser, system font, fontconfig file,
 * locale or environment variable takes part.
 */
export const RASTER_RENDERER = 'tapedeck-raster';
/** Raised whenever a change moves pixels: goldens of another version are re-recorded, not compared. */
export const RASTER_VERSION = 1;

export interface RasterOptions {
  /** A built-in profile name or a profile object; default reference-dark (or TAPEDECK_PROFILE). */
  profile?: string | RenderProfile;
  /** auto follows the program (DECTCEM); show/hide force it. */
  cursor?: CursorMode;
  /** Volatile regions, painted as blank cells of MASK_RGB. */
  mask?: readonly ScreenMask[];
  /** The tape the screen comes from, named when it is too large to render. */
  source?: FileLocation;
}

export interface RasterImage {
  width: number;
  height: number;
  /** width * height * 4 bytes, RGBA, rows top to bottom. */
  data: Uint8Array;
  cell: { width: number; height: number };
  padding: { x: number; y: number };
  cursorVisible: boolean;
  profileName: string;
}

/** The largest side in pixels (as Chromium, whose captures stop at 16384). */
export const MAX_SIDE = 16_384;

/** Frames up to this many bytes are drawn into one reused buffer (a 200x60 screen is 7 MB). */
const SCRATCH_MAX = 16 << 20;

const caches = new Map<string, { metrics: CellMetrics; glyphs: GlyphCache }>();

function engineFor(profile: RenderProfile): { metrics: CellMetrics; glyphs: GlyphCache } {
  const key = `${profile.fontSize}/${profile.lineHeight}`;
  let e = caches.get(key);
  if (!e) {
    const metrics = cellMetrics(profile.fontSize, profile.lineHeight);
    e = { metrics, glyphs: new GlyphCache(metrics) };
    if (caches.size > 8) caches.clear();
    caches.set(key, e);
  }
  return e;
}

/** The pixels of a snapshot taken with `includeCells: true` (in fresh memory, the caller's to keep). */
export function renderScreenRgba(snapshot: ScreenSnapshot, options: RasterOptions = {}): RasterImage {
  return renderInto(snapshot, options);
}

let frameScratch: Uint8Array | undefined;

/** The same, as PNG bytes with the `tapedeck` stamp. */
export function renderScreenPng(snapshot: ScreenSnapshot, options: RasterOptions = {}): Buffer {
  // The frame is encoded and dropped: it is drawn into memory reused from the last screenshot.
  const image = renderInto(snapshot, options, true);
  return encodeRgbaPng(image.width, image.height, image.data, stampOf(snapshot, image));
}

function renderInto(snapshot: ScreenSnapshot, options: RasterOptions, reuse = false): RasterImage {
  if (!snapshot.cells) throw new Error('renderScreenRgba: the snapshot needs cells (snapshot({ includeCells: true }))');
  const profile = resolveProfile(options.profile);
  const { metrics, glyphs } = engineFor(profile);
  checkSize(snapshot, profile, metrics, options.source);
  const cursorVisible = options.cursor === 'show' ? true : options.cursor === 'hide' ? false : snapshot.cursor.visible;
  const pixels = 4 * (2 * profile.padding + snapshot.cols * metrics.width) * (2 * profile.padding + snapshot.rows * metrics.height);
  if (reuse && (!frameScratch || frameScratch.length < pixels) && pixels <= SCRATCH_MAX) frameScratch = new Uint8Array(pixels);
  const frame = compose({
    snap: snapshot,
    profile,
    metrics,
    glyphs,
    masked: maskedCells(snapshot.cells, options.mask ?? []),
    cursorVisible,
    cursorStyle: snapshot.cursorStyle ?? 'block',
  }, reuse ? frameScratch : undefined);
  return {
    ...frame,
    cell: { width: metrics.width, height: metrics.height },
    padding: { x: profile.padding, y: profile.padding },
    cursorVisible,
    profileName: profile.name,
  };
}

let fonts: Record<string, string | null> | undefined;

export function stampOf(snapshot: Pick<ScreenSnapshot, 'rows' | 'cols'>, image: Pick<RasterImage, 'cell' | 'padding'>): PngStamp {
  fonts ??= fontPackages();
  return { renderer: RASTER_RENDERER, version: RASTER_VERSION, fonts, rows: snapshot.rows, cols: snapshot.cols, cell: image.cell, padding: image.padding };
}

/** The stamp's renderer version of a golden made by another version of this renderer (or by another renderer: 0), else null. */
export function otherRendererVersion(golden: Buffer): { renderer: string; version: number } | null {
  const stamp = readPngStamp(golden);
  if (!stamp) return { renderer: 'unstamped (the browser renderer)', version: 0 };
  if (stamp.renderer !== RASTER_RENDERER || stamp.version !== RASTER_VERSION) return { renderer: String(stamp.renderer), version: Number(stamp.version) || 0 };
  return null;
}

function checkSize(snap: ScreenSnapshot, profile: RenderProfile, m: CellMetrics, source?: FileLocation): void {
  const width = 2 * profile.padding + snap.cols * m.width;
  const height = 2 * profile.padding + snap.rows * m.height;
  if (width > MAX_SIDE || height > MAX_SIDE || width * height > limit('maxScreenshotPixels')) {
    throw limitError(
      'maxScreenshotPixels',
      `a ${snap.cols}x${snap.rows} screen is ${width}x${height} pixels, too large to render (at most ${MAX_SIDE} a side and ${limit('maxScreenshotPixels')} pixels)`,
      source,
    );
  }
}

export { readPngStamp, type PngStamp } from './png.js';
