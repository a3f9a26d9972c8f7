import { optionalPackage } from '../../core/lazy-package.js';
import { indexRect } from '../gif/frame.js';
import { gifenc } from '../gif/gifenc.js';
import { placeFrame } from '../gif/export.js';
import type { Picture } from './window.js';

/**
 * A VHS run's GIF, in memory: each distinct picture once, its delay the
 * ticks it lasts (a tick is 1 / (Framerate x PlaybackSpeed) seconds, delays
 * from rounded start times so the total never drifts), only the rectangle
 * that changed stored, pixels that stay the same transparent, exact palettes
 * (a rectangle of over 255 colours is quantised). Loops for ever, as VHS's.
 */
export class GifSink {
  private readonly encoder = gifenc().GIFEncoder({ auto: false, initialCapacity: 1 << 16 });
  private readonly chunks: Uint8Array[] = [];
  private shown: Uint32Array | null = null;
  private ticks = 0;
  frames = 0;

  constructor(private readonly ticksPerSecond: number) {}

  add(picture: Picture, ticks: number): void {
    const { width, height } = picture;
    const px = new Uint32Array(picture.data.buffer, picture.data.byteOffset, width * height);
    const start = Math.round((this.ticks * 100) / this.ticksPerSecond);
    this.ticks += ticks;
    const delay = Math.max(1, Math.round((this.ticks * 100) / this.ticksPerSecond) - start);
    const rect = this.shown ? changedRect(this.shown, px, width, height) ?? { x: 0, y: 0, width: 1, height: 1 } : { x: 0, y: 0, width, height };
    const frame = indexRect(px, width, 0, rect, this.shown);
    const first = this.frames === 0;
    if (first) this.encoder.writeHeader();
    this.encoder.writeFrame(frame.index, frame.width, frame.height, { palette: frame.palette, delay: delay * 10, first, repeat: 0, dispose: 1, transparent: frame.transparent, transparentIndex: 0 });
    if (!first) placeFrame(this.encoder.bytesView(), frame.x, frame.y);
    this.chunks.push(this.encoder.bytesView().slice());
    this.encoder.reset();
    // What the GIF shows now: the frame's colours where it is not transparent.
    const shown = this.shown ?? new Uint32Array(width * height);
    const colours = frame.palette.map(([r, g, b]) => (0xff000000 | (b << 16) | (g << 8) | r) >>> 0);
    let i = 0;
    for (let y = frame.y; y < frame.y + frame.height; y++) {
      for (let x = frame.x; x < frame.x + frame.width; x++, i++) {
        const k = frame.index[i];
        if (!(frame.transparent && k === 0)) shown[y * width + x] = colours[k];
      }
    }
    this.shown = shown;
    this.frames++;
  }

  finish(): Buffer {
    this.encoder.finish();
    this.chunks.push(this.encoder.bytesView().slice());
    return Buffer.concat(this.chunks);
  }
}

function changedRect(a: Uint32Array, b: Uint32Array, w: number, h: number): { x: number; y: number; width: number; height: number } | null {
  let top = -1;
  let bottom = -1;
  let left = w;
  let right = -1;
  for (let y = 0; y < h; y++) {
    const o = y * w;
    let x = 0;
    while (x < w && a[o + x] === b[o + x]) x++;
    if (x === w) continue;
    if (top < 0) top = y;
    bottom = y;
    if (x < left) left = x;
    let xr = w - 1;
    while (xr > right && a[o + xr] === b[o + xr]) xr--;
    if (xr > right) right = xr;
  }
  return top < 0 ? null : { x: left, y: top, width: right - left + 1, height: bottom - top + 1 };
}

/** A picture and how long it is shown (ms). */
export interface TimedPicture {
  picture: Picture;
  ms: number;
}

interface GifReaderLike {
  width: number;
  height: number;
  numFrames(): number;
  frameInfo(i: number): { x: number; y: number; width: number; height: number; delay: number; disposal: number };
  decodeAndBlitFrameRGBA(i: number, pixels: Uint8Array): void;
}
const omggif = optionalPackage<{ GifReader: new (buf: Uint8Array) => GifReaderLike }>('omggif');

/** The frames of any GIF (tapedeck's, VHS's ffmpeg ones), composited as a viewer shows them, one at a time. */
export function* decodeGif(bytes: Uint8Array): Generator<TimedPicture> {
  const reader = new (omggif().GifReader)(bytes);
  const { width, height } = reader;
  let canvas = new Uint8Array(width * height * 4);
  for (let i = 0; i < reader.numFrames(); i++) {
    const info = reader.frameInfo(i);
    const before = info.disposal === 3 ? canvas.slice() : undefined;
    reader.decodeAndBlitFrameRGBA(i, canvas);
    yield { picture: { width, height, data: canvas.slice() }, ms: info.delay * 10 };
    if (info.disposal === 2) {
      for (let y = info.y; y < Math.min(height, info.y + info.height); y++) canvas.fill(0, (y * width + info.x) * 4, (y * width + Math.min(width, info.x + info.width)) * 4);
    } else if (before) canvas = before;
  }
}
