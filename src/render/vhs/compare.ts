import { countDiffPixels, validateCompareOptions, type PixelCompareOptions } from '../pixel/diff.js';
import type { TimedPicture } from './gif.js';
import type { Picture } from './window.js';

/**
 * Two animations compared as they play: the time line is walked through
 * every moment either one changes picture, and at each the two pictures on
 * screen are compared by pixels with the screenshot options (pixelmatch's
 * threshold, maxDiffPixels, maxDiffPixelRatio). How the frames are cut
 * (one frame of 1 s or fifty of 20 ms) does not matter, only what is shown
 * when. Both are read one frame at a time.
 */
export interface AnimationVerdict {
  pass: boolean;
  message?: string;
  /** The first moment they differ (ms), and the two pictures then. */
  atMs?: number;
  expected?: Picture;
  actual?: Picture;
}

export async function compareAnimations(
  expected: Iterable<TimedPicture> | AsyncIterable<TimedPicture>,
  actual: Iterable<TimedPicture> | AsyncIterable<TimedPicture>,
  options: PixelCompareOptions = {},
): Promise<AnimationVerdict> {
  const opts = validateCompareOptions(options);
  const a = iterate(expected);
  const b = iterate(actual);
  try {
    return await compareFrames(a, b, opts);
  } finally {
    // A verdict before the end stops both sources: a video decoder's ffmpeg is killed and reaped.
    await Promise.all([a.return?.(), b.return?.()]);
  }
}

async function compareFrames(a: AsyncIterator<TimedPicture>, b: AsyncIterator<TimedPicture>, opts: ReturnType<typeof validateCompareOptions>): Promise<AnimationVerdict> {
  let ea = await a.next();
  let eb = await b.next();
  if (ea.done || eb.done) return ea.done && eb.done ? { pass: true } : { pass: false, message: ea.done ? 'the golden has no frame' : 'the run has no frame' };
  const size = (p: Picture) => `${p.width}x${p.height}`;
  if (size(ea.value.picture) !== size(eb.value.picture)) return { pass: false, message: `frame size differs: ${size(ea.value.picture)} px in the golden, ${size(eb.value.picture)} px live`, atMs: 0 };
  let endA = ea.value.ms;
  let endB = eb.value.ms;
  let now = 0;
  let fresh = true;
  for (;;) {
    if (fresh) {
      const pa = ea.value.picture;
      const pb = eb.value.picture;
      const pixels = pa.width * pa.height;
      const allowed = Math.min(opts.maxDiffPixels ?? Infinity, opts.maxDiffPixelRatio === undefined ? Infinity : Math.floor(opts.maxDiffPixelRatio * pixels));
      const limit = Number.isFinite(allowed) ? allowed : 0;
      const same = Buffer.from(pa.data.buffer, pa.data.byteOffset, pa.data.length).equals(Buffer.from(pb.data.buffer, pb.data.byteOffset, pb.data.length));
      const diff = same ? 0 : countDiffPixels(rgba(pa), rgba(pb), opts.threshold);
      if (diff > limit) {
        return { pass: false, atMs: now, expected: pa, actual: pb, message: `at ${(now / 1000).toFixed(2)} s: ${diff} pixels differ (allowed ${limit}, threshold ${opts.threshold})` };
      }
    }
    const next = Math.min(endA, endB);
    now = next;
    fresh = false;
    if (endA <= next + 1e-6) {
      ea = await a.next();
      if (!ea.done) {
        endA += ea.value.ms;
        fresh = true;
      }
    }
    if (endB <= next + 1e-6) {
      eb = await b.next();
      if (!eb.done) {
        endB += eb.value.ms;
        fresh = true;
      }
    }
    if (ea.done || eb.done) {
      if (ea.done && eb.done) return { pass: true };
      // One ended first: it is longer only if the other still shows something for more than a rounding step.
      const rest = ea.done ? endB - now : endA - now;
      if (rest <= 10) return { pass: true };
      const total = async (it: AsyncIterator<TimedPicture>, sum: number) => {
        for (let e = await it.next(); !e.done; e = await it.next()) sum += e.value.ms;
        return sum;
      };
      const ta = ea.done ? now : await total(a, endA);
      const tb = eb.done ? now : await total(b, endB);
      return { pass: false, atMs: now, message: `length differs: ${(ta / 1000).toFixed(2)} s in the golden, ${(tb / 1000).toFixed(2)} s live` };
    }
  }
}

function rgba(p: Picture) {
  return { width: p.width, height: p.height, data: Buffer.from(p.data.buffer, p.data.byteOffset, p.data.length) };
}

function iterate(src: Iterable<TimedPicture> | AsyncIterable<TimedPicture>): AsyncIterator<TimedPicture> {
  if (Symbol.asyncIterator in src) return (src as AsyncIterable<TimedPicture>)[Symbol.asyncIterator]();
  const it = (src as Iterable<TimedPicture>)[Symbol.iterator]();
  return { next: async () => it.next() };
}
