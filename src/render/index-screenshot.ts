/** PNG screenshots and pixel comparison (re-exported from the package root). */
export { screenshotSnapshot, screenshotFields, type Screenshot, type ScreenshotOptions, type ScreenshotResult } from './screenshot.js';
export { screenshotTerminal } from './screenshot-terminal.js';
export { screenshotCast } from './screenshot-cast.js';
export { renderSnapshot, closeRenderer, BROWSER_BACKEND, type RenderOptions, type RenderedPng } from './renderer.js';
export { chromiumPath, DEFAULT_CHROMIUM } from './renderer-browser.js';
export { repaint, MASK_RGB, type CursorMode, type RepaintOptions } from './renderer-repaint.js';
export { PROFILES, DEFAULT_PROFILE, profileNames, resolveProfile, renderProfileHash, type RenderProfile, type RenderTheme } from './profiles.js';
export {
  comparePngs, countDiffPixels, diffImage, writeMismatchArtifacts, mismatchArtifactPaths, describeMismatch, validateCompareOptions,
  DEFAULT_THRESHOLD, type PixelCompareOptions, type PixelComparison,
} from './pixel-diff.js';
export { decodePng, encodePng, pngSize, PngError, type RgbaImage } from './pixel-diff-png.js';
