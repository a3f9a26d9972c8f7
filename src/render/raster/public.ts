/**
 * `tapedeck/render`: the raster renderer as a package entry. Screens drawn to
 * pixels in Node with the pinned fonts, no browser: the same pixels as
 * `tapedeck screenshot` and `toMatchScreenshot`. A snapshot comes from
 * `term.snapshot({ includeCells: true })` or `playCast(...).screen.snapshot({ includeCells: true })`
 * (docs/render.md, "From code"). `renderSnapshot` resolves to the PNG with its sizes;
 * the others are synchronous.
 */
export { renderScreenPng, renderScreenRgba, readPngStamp, RASTER_RENDERER, RASTER_VERSION, MAX_SIDE } from './index.js';
export type { RasterOptions, RasterImage, PngStamp } from './index.js';
export { renderSnapshot, type RenderedPng, type RenderOptions } from './render.js';
export { PROFILE_NAMES, type ProfileName } from '../profile-names.js';
export type { RenderProfile, RenderTheme } from '../profiles.js';
export type { ScreenMask } from '../golden-text.js';
export type { CursorMode } from '../browser/repaint.js';
export type { ScreenSnapshot, SnapshotCell, CellColor } from '../../session/screen/screen.js';
