import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { writeTarget } from '../../core/files/atomic-write.js';
import { siblingTempPath } from '../../core/files/temp-files.js';
import { openCast } from '../../tape/asciicast/read.js';
import { eventBytes, parseResize } from '../../tape/asciicast/events.js';
import { Screen } from '../../session/screen/screen.js';
import type { CastPosition } from '../../session/cast/play.js';
import { profileForCast } from '../profiles.js';
import type { CursorMode } from '../browser/repaint.js';
import { GifTimeline } from './timeline.js';
import { gifenc } from './gifenc.js';
import { indexRect, type IndexedFrame } from './frame.js';
import { GifCanvas } from './canvas.js';

/**
 * A cast as an animated GIF, streamed: the tape is read event by event, a
 * frame is drawn (by the raster renderer, the pixels of `tapedeck screenshot`)
 * only at a frame slot where the screen changed, only the changed rectangle is
 * stored, and each frame is written to the file as soon as the next one
 * fixes its delay. Memory holds one screen, two images and one frame, however
 * long the cast. The file appears, whole, only when the GIF is complete.
 */
export interface GifOptions {
  /** Frames per second at most (default 30, at most 50: viewers slow shorter delays down). */
  fps?: number;
  /** Playback speed factor (default 1). */
  speed?: number;
  /** Pauses longer than this many seconds are cut to it (default: the cast's idle_time_limit, else 2). */
  idleTimeLimit?: number;
  /** Start after this position (a marker, #N or seconds) with the screen as it is there. */
  from?: CastPosition;
  /** End after this position. */
  to?: CastPosition;
  /** How many times it plays: 0 (default) for ever. */
  loop?: number;
  profile?: string;
  cursor?: CursorMode;
  /** Called for each frame written, with its start time in the GIF (seconds) and the cast time it shows. */
  onFrame?: (frame: { index: number; time: number; castTime: number; rect: { x: number; y: number; width: number; height: number }; exact: boolean }) => void;
}

export interface GifResult {
  frames: number;
  /** The GIF's playing time in seconds (one loop). */
  seconds: number;
  width: number;
  height: number;
  bytes: number;
  /** Frames whose rectangle had more than 256 colours (quantised). */
  quantisedFrames: number;
}

const BATCH_BYTES = 64 * 1024;
const MAX_IN_FLIGHT = 4 * 1024 * 1024;

/** The final screen is held this long after the cast's end, so a looping GIF shows it before starting over. */
const END_HOLD = 1;

export async function castToGif(input: string, output: string, options: GifOptions = {}): Promise<GifResult> {
  const cast = await openCast(input);
  const timeline = new GifTimeline({ ...options, idleTimeLimit: options.idleTimeLimit ?? cast.header.idleTimeLimit }, input);
  const profile = profileForCast(options.profile, cast.header.theme);
  const target = writeTarget(output);
  const temp = siblingTempPath(target);
  let fd: number;
  try {
    fd = openSync(temp, 'wx', 0o644);
  } catch (err) {
    throw cannotWrite(output, err);
  }
  const screen = new Screen({ rows: cast.header.rows, cols: cast.header.cols, scrollback: 0 });
  const encoder = gifenc().GIFEncoder({ auto: false, initialCapacity: 1 << 16 });
  let bytes = 0;
  const flushEncoder = () => {
    const view = encoder.bytesView();
    let off = 0;
    while (off < view.length) off += writeSync(fd, view, off, view.length - off);
    bytes += view.length;
    encoder.reset();
  };
  const canvas = new GifCanvas(profile, options.cursor, input);
  let pending: { frame: IndexedFrame; time: number; castTime: number } | null = null;
  let frames = 0;
  let quantised = 0;
  const repeat = options.loop === undefined || options.loop === 0 ? 0 : options.loop === 1 ? -1 : options.loop - 1;

  const writePending = (until: number) => {
    if (!pending) return;
    const { frame, time, castTime } = pending;
    // Delays in centiseconds from rounded start times: the total never drifts from the cast's.
    const delay = Math.max(1, Math.round(until * 100) - Math.round(time * 100));
    const first = frames === 0;
    if (first) encoder.writeHeader();
    encoder.writeFrame(frame.index, frame.width, frame.height, { palette: frame.palette, delay: delay * 10, first, repeat, dispose: 1, transparent: frame.transparent, transparentIndex: 0 });
    if (!first) placeFrame(encoder.bytesView(), frame.x, frame.y);
    flushEncoder();
    options.onFrame?.({ index: frames, time, castTime, rect: { x: frame.x, y: frame.y, width: frame.width, height: frame.height }, exact: frame.exact });
    frames++;
    if (!frame.exact) quantised++;
    pending = null;
  };

  // Output goes to xterm in batches (its per-write cost dominates small events), never far ahead of it.
  let batch: Uint8Array[] = [];
  let batchSize = 0;
  let inFlight = 0;
  const sendBatch = async () => {
    if (batchSize > 0) {
      const bytes = batch.length === 1 ? batch[0] : Buffer.concat(batch, batchSize);
      const size = batchSize;
      batch = [];
      batchSize = 0;
      inFlight += size;
      void screen.write(bytes).then(() => (inFlight -= size));
    }
    if (inFlight > MAX_IN_FLIGHT) await screen.flush();
  };

  const capture = async (time: number, castTime: number) => {
    await sendBatch();
    await screen.flush();
    const update = canvas.draw(screen.snapshot({ includeCells: true }));
    if (!update) return;
    const rect = canvas.changed(update);
    if (!rect) return;
    const frame = indexRect(update.band, canvas.width, update.y0, rect, canvas.pixels);
    canvas.apply(update, frame);
    writePending(time);
    pending = { frame, time, castTime };
    if (canvas.approximate) timeline.redrawNext();
  };

  try {
    for await (const e of cast.events()) {
      const step = timeline.next(e);
      if (step.kind === 'stop') break;
      if (step.kind === 'frame') await capture(step.time, step.castTime);
      if (e.code === 'o') {
        const b = eventBytes(e);
        batch.push(b);
        batchSize += b.length;
        if (batchSize >= BATCH_BYTES) await sendBatch();
      } else if (e.code === 'r') {
        const size = parseResize(e.data);
        if (size) {
          await sendBatch();
          await screen.flush(); // a resize is immediate, the writes before it are not
          screen.resize(size.rows, size.cols);
        }
      }
      if (timeline.stopsAfter(e)) break;
    }
    const end = timeline.finish();
    if (end.capture) await capture(end.time, end.castTime);
    // The last frame was quantised: one more, a slot later, sets its pixels right (a frame's colours are then few).
    for (let i = 1; canvas.approximate && i <= 3; i++) {
      const extra = timeline.extraFrame();
      await capture(extra.time, extra.castTime);
    }
    writePending(Math.max(end.endTime, timeline.duration) + END_HOLD);
    if (frames === 0) throw new TapedeckError('EXPORT_ERROR', 'the GIF has no frame', { location: { file: input } });
    encoder.finish();
    flushEncoder();
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, target);
  } catch (err) {
    closeQuietly(fd);
    rmSync(temp, { force: true });
    // A failed write (a full disk, say) names the output; everything else keeps its own message.
    if (!(err instanceof TapedeckError) && typeof (err as NodeJS.ErrnoException).syscall === 'string') throw cannotWrite(output, err);
    throw err;
  } finally {
    screen.dispose();
  }
  return { frames, seconds: timeline.duration + END_HOLD, width: canvas.width, height: canvas.height, bytes, quantisedFrames: quantised };
}

/** gifenc writes every image at (0, 0): a frame's bytes start with its graphic control block (8 bytes), then the image descriptor's position. */
export function placeFrame(bytes: Uint8Array, x: number, y: number): void {
  if (bytes[0] !== 0x21 || bytes[1] !== 0xf9 || bytes[8] !== 0x2c) throw new Error('gif: unexpected frame layout from the encoder');
  bytes[9] = x & 0xff;
  bytes[10] = x >> 8;
  bytes[11] = y & 0xff;
  bytes[12] = y >> 8;
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

function cannotWrite(output: string, err: unknown): TapedeckError {
  const e = err as NodeJS.ErrnoException;
  const reason = e.code === 'ENOENT' ? 'no such directory' : e.code === 'EACCES' || e.code === 'EPERM' ? 'permission denied' : e.code === 'ENOSPC' ? 'no space left on device' : e.message;
  return new TapedeckError('STORAGE_WRITE_ERROR', `cannot write the GIF: ${reason} (nothing was written)`, { location: { file: output }, cause: err });
}
