import { createRequire } from 'node:module';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { optionalPackage } from '../../core/lazy-package.js';

const requireCanvas = optionalPackage<typeof import('@napi-rs/canvas')>('@napi-rs/canvas');

type CanvasModule = typeof import('@napi-rs/canvas');

let loaded: CanvasModule | undefined;

/**
 * @napi-rs/canvas (Skia), loaded on the first screenshot only: a protocol
 * replay never pays for it. Its system fonts are never loaded
 * (DISABLE_SYSTEM_FONTS_LOAD is read once, when the module loads): the font
 * collection holds only the pinned fonts tapedeck registers, and every
 * character is drawn with a font known to have it (fonts.ts), so Skia's
 * fallback to the machine's fonts is never asked for.
 */
export function canvasModule(): CanvasModule {
  if (loaded) return loaded;
  const before = process.env.DISABLE_SYSTEM_FONTS_LOAD;
  process.env.DISABLE_SYSTEM_FONTS_LOAD = '1';
  try {
    loaded = requireCanvas();
  } catch (err) {
    if (err instanceof TapedeckError) throw err; // not installed (npm install --omit=optional)
    throw new TapedeckError(
      'RENDERER_UNAVAILABLE',
      `the screenshot rasteriser @napi-rs/canvas could not be loaded (${(err as Error).message.split('\n')[0]}). Fix: npm install (it is a dependency of tapedeck; its prebuilt package for this platform must be installed too)`,
      { cause: err },
    );
  } finally {
    if (before === undefined) delete process.env.DISABLE_SYSTEM_FONTS_LOAD;
    else process.env.DISABLE_SYSTEM_FONTS_LOAD = before;
  }
  return loaded;
}

/** The installed version of @napi-rs/canvas, or null. */
export function canvasVersion(): string | null {
  try {
    return (createRequire(import.meta.url)('@napi-rs/canvas/package.json') as { version: string }).version;
  } catch {
    return null;
  }
}
