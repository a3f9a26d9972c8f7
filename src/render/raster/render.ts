import type { ScreenSnapshot } from '../../session/screen/screen.js';
import { renderProfileHash, resolveProfile } from '../profiles.js';
import { canvasModule, canvasVersion } from './canvas.js';
import { fontPackages, monoFace } from './fonts.js';
import { RASTER_RENDERER, RASTER_VERSION, renderScreenPng, renderScreenRgba, stampOf, type RasterOptions } from './index.js';
import { encodeRgbaPng } from './png.js';

/**
 * The raster renderer behind every screenshot (tapedeck screenshot,
 * toMatchScreenshot, replay checkpoints, report images, webm frames), in the
 * shape the callers had from the browser renderer.
 */
export interface RenderedPng {
  png: Buffer;
  pixelWidth: number;
  pixelHeight: number;
  cursorVisible: boolean;
  profileName: string;
  rendererBackend: string;
  renderProfileHash: string;
}

export type RenderOptions = RasterOptions;

/** Renders a snapshot taken with `includeCells: true` to PNG bytes. */
export async function renderSnapshot(snap: ScreenSnapshot, options: RenderOptions = {}): Promise<RenderedPng> {
  const profile = resolveProfile(options.profile);
  const image = renderScreenRgba(snap, { ...options, profile });
  const png = encodeRgbaPng(image.width, image.height, image.data, stampOf(snap, image));
  return {
    png,
    pixelWidth: image.width,
    pixelHeight: image.height,
    cursorVisible: image.cursorVisible,
    profileName: profile.name,
    rendererBackend: RASTER_RENDERER,
    renderProfileHash: renderProfileHash(profile, rasterEngine()),
  };
}

/** The same, without the fields (the GIF/SVG exporters and the bench call this). */
export { renderScreenPng };

let engine: Record<string, string> | undefined;

/**
 * The versions the profile hash covers; loading them loads the rasteriser and
 * the primary font, so a missing one is an error before any program starts.
 */
export function rasterEngine(): Record<string, string> {
  if (engine) return engine;
  canvasModule();
  monoFace(false, false);
  const e: Record<string, string> = { backend: RASTER_RENDERER, version: String(RASTER_VERSION), '@napi-rs/canvas': canvasVersion() ?? 'missing' };
  for (const [name, version] of Object.entries(fontPackages())) e[name] = version ?? 'missing';
  engine = e;
  return e;
}
