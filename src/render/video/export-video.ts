import { randomBytes } from 'node:crypto';
import { renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { openCast } from '../../tape/asciicast/read.js';
import { eventBytes, parseResize } from '../../tape/asciicast/events.js';
import { renderSnapshot } from '../raster/render.js';
import { profileForCast } from '../profiles.js';
import { Screen } from '../../session/screen/screen.js';
import type { CursorMode } from '../browser/repaint.js';

/**
 * A cast as a WebM video, drawn by the screenshot renderer (the same pixels
 * as `tapedeck screenshot`) at a fixed frame rate and encoded by ffmpeg
 * (Debian's; Playwright's own video recording needs an ffmpeg build it
 * downloads, which this project never does). Pauses longer than
 * `idleTimeLimit` are shortened, as asciinema does.
 */
export interface VideoOptions {
  fps?: number;
  idleTimeLimit?: number;
  profile?: string;
  cursor?: CursorMode;
  ffmpeg?: string;
}

export async function castToWebm(input: string, output: string, options: VideoOptions = {}): Promise<{ frames: number; seconds: number }> {
  const fps = options.fps ?? 10;
  const idle = options.idleTimeLimit ?? 2;
  const cast = await openCast(input);
  const screen = new Screen({ rows: cast.header.rows, cols: cast.header.cols, scrollback: 0 });
  const profile = profileForCast(options.profile, cast.header.theme);
  // Encoded into a temporary sibling and renamed into place only when ffmpeg succeeded: never a half video.
  const partial = join(dirname(output), `.${basename(output)}.${process.pid}.${randomBytes(4).toString('hex')}.webm`);
  const ffmpeg = spawn(options.ffmpeg ?? process.env.TAPEDECK_FFMPEG ?? 'ffmpeg', [
    '-y', '-loglevel', 'error', '-f', 'image2pipe', '-framerate', String(fps), '-c:v', 'png', '-i', '-',
    '-c:v', 'libvpx', '-b:v', '1M', '-pix_fmt', 'yuv420p', '-an',
    // Bit-exact: no random SegmentUID and no encoder version in the file, so one cast gives the same bytes (seed 002 §16.3).
    '-fflags', '+bitexact', '-flags:v', '+bitexact', '-f', 'webm', partial,
  ], { stdio: ['pipe', 'ignore', 'pipe'] });
  const started = new Promise<void>((resolve, reject) => {
    ffmpeg.once('spawn', resolve);
    ffmpeg.once('error', (err: NodeJS.ErrnoException) =>
      reject(new TapedeckError('EXPORT_ERROR', `cannot run ffmpeg: ${err.code === 'ENOENT' ? 'not installed (Debian: apt-get install -y ffmpeg; or set TAPEDECK_FFMPEG)' : err.message}`)),
    );
  });
  let stderr = '';
  ffmpeg.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let ffmpegEnded = false;
  const finished = new Promise<number | null>((resolve) =>
    ffmpeg.once('close', (code) => {
      ffmpegEnded = true;
      resolve(code);
    }),
  );
  ffmpeg.stdin.on('error', () => {});
  await started;

  let frames = 0;
  let videoTime = 0; // seconds of video written
  let castClock = 0; // cast time, with long pauses shortened
  let lastEventTime = 0;
  let lastKey = '';
  let lastPng: Buffer | undefined;
  const frameAt = async () => {
    await screen.flush();
    const key = screen.frameKey();
    if (key !== lastKey || !lastPng) {
      lastPng = (await renderSnapshot(screen.snapshot({ includeCells: true }), { profile, cursor: options.cursor })).png;
      lastKey = key;
    }
    return lastPng;
  };
  const writeFramesUntil = async (t: number) => {
    while (videoTime + 1 / fps <= t + 1e-9) {
      // An ffmpeg that dies while a frame is drawn fails the export then, not after the frame.
      const png = await Promise.race([frameAt(), finished.then(() => undefined)]);
      if (ffmpegEnded || !png) throw ffmpegFailed(await finished, stderr);
      // An ffmpeg that died never drains: wait for whichever comes first.
      if (!ffmpeg.stdin.write(png)) await Promise.race([new Promise((r) => ffmpeg.stdin.once('drain', r)), finished]);
      frames++;
      videoTime += 1 / fps;
    }
  };
  try {
    for await (const e of cast.events()) {
      castClock += Math.min(e.time - lastEventTime, idle);
      lastEventTime = e.time;
      await writeFramesUntil(castClock);
      if (e.code === 'o') await screen.write(eventBytes(e));
      else if (e.code === 'r') {
        const size = parseResize(e.data);
        if (size) screen.resize(size.rows, size.cols);
      }
    }
    await writeFramesUntil(castClock + 1); // hold the last screen for a second
  } catch (err) {
    ffmpeg.kill('SIGKILL');
    await finished;
    rmSync(partial, { force: true });
    throw err;
  } finally {
    ffmpeg.stdin.end();
    screen.dispose();
  }
  const code = await finished;
  if (code !== 0) {
    rmSync(partial, { force: true });
    throw ffmpegFailed(code, stderr);
  }
  renameSync(partial, output);
  return { frames, seconds: videoTime };
}

function ffmpegFailed(code: number | null, stderr: string): TapedeckError {
  return new TapedeckError('EXPORT_ERROR', `ffmpeg failed (exit ${code}): ${stderr.trim().slice(-500) || 'no message'}`);
}
