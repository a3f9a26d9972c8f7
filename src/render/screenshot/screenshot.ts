import { TapedeckError } from '../../core/diagnostics/errors.js';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { writeFileAtomic } from '../../core/files/atomic-write.js';
import type { ScreenSnapshot } from '../../session/screen/screen.js';
import { renderSnapshot, type RenderOptions } from '../raster/render.js';

/**
 * Screenshots of a screen: render, hash, optionally write, and describe the
 * result with seed 002 §15.3's fields.
 */
export interface ScreenshotOptions extends RenderOptions {
  /** Where to write the PNG (atomically); none keeps it in memory only. */
  out?: string;
}

/** Seed 002 §15.3. */
export interface ScreenshotResult {
  /** Live terminal: the event seq whose output is the last on screen. Cast: how many tape events were applied. */
  capturedAtSeq: number;
  profileName: string;
  cols: number;
  rows: number;
  /** Absolute path of the written PNG, or null when not written. */
  artifactPath: string | null;
  pngSizeBytes: number;
  cursorVisible: boolean;
  rendererBackend: string;
  pixelWidth: number;
  pixelHeight: number;
  /** sha256 of the PNG bytes, hex. */
  sha256: string;
  /** sha256 of the profile and the engine versions (see profiles.ts). */
  renderProfileHash: string;
}

export interface Screenshot extends ScreenshotResult {
  png: Buffer;
}

/** Renders a snapshot taken with `includeCells: true`. */
export async function screenshotSnapshot(snap: ScreenSnapshot, capturedAtSeq: number, options: ScreenshotOptions = {}): Promise<Screenshot> {
  const rendered = await renderSnapshot(snap, options);
  let artifactPath: string | null = null;
  if (options.out) {
    artifactPath = resolve(options.out);
    try {
      mkdirSync(dirname(artifactPath), { recursive: true });
    } catch (err) {
      throw new TapedeckError('STORAGE_WRITE_ERROR', `cannot create the folder for the screenshot: ${(err as Error).message}`, { location: { file: options.out }, cause: err });
    }
    writeFileAtomic(artifactPath, rendered.png);
  }
  return {
    capturedAtSeq,
    profileName: rendered.profileName,
    cols: snap.cols,
    rows: snap.rows,
    artifactPath,
    pngSizeBytes: rendered.png.length,
    cursorVisible: rendered.cursorVisible,
    rendererBackend: rendered.rendererBackend,
    pixelWidth: rendered.pixelWidth,
    pixelHeight: rendered.pixelHeight,
    sha256: createHash('sha256').update(rendered.png).digest('hex'),
    renderProfileHash: rendered.renderProfileHash,
    png: rendered.png,
  };
}

/** The result without the PNG bytes (for JSON output). */
export function screenshotFields(shot: Screenshot): ScreenshotResult {
  const { png: _png, ...fields } = shot;
  return fields;
}
