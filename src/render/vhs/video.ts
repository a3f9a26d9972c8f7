import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import type { TimedPicture } from './gif.js';
import type { Picture } from './window.js';

/**
 * WebM and MP4 of a VHS run through Debian's ffmpeg, from raw RGBA frames on
 * its stdin (no PNG per frame): VHS's codecs and quality (video.go: VP9 at
 * CRF 30 for .webm, x264 at CRF 20 yuv420p for .mp4), one thread and
 * bit-exact muxing so the same frames give the same bytes; odd sizes padded
 * to even (yuv420p). Decoding gives RGBA frames back for the golden check.
 */
export type VideoFormat = 'webm' | 'mp4';

const ffmpegBin = (env: NodeJS.ProcessEnv = process.env) => env.TAPEDECK_FFMPEG ?? 'ffmpeg';
const ffprobeBin = () => process.env.TAPEDECK_FFPROBE ?? 'ffprobe';

function missing(err: NodeJS.ErrnoException, what: string): TapedeckError {
  return new TapedeckError('EXPORT_ERROR', `cannot run ${what}: ${err.code === 'ENOENT' ? 'not installed (Debian: apt-get install -y ffmpeg; or set TAPEDECK_FFMPEG)' : err.message}`);
}

export interface VideoEncodeOptions {
  format: VideoFormat;
  width: number;
  height: number;
  /** Frames per second of the output (Framerate x PlaybackSpeed). */
  fps: number;
}

/** Encodes `frames` (each picture repeated for its tick count) and returns the file's bytes. */
export async function encodeVideo(frames: AsyncIterable<{ picture: Picture; ticks: number }>, o: VideoEncodeOptions, env: NodeJS.ProcessEnv = process.env): Promise<Buffer> {
  const out = join(tmpdir(), `tapedeck-vhs-${process.pid}-${randomBytes(4).toString('hex')}.${o.format}`);
  const codec = o.format === 'webm'
    ? ['-c:v', 'libvpx-vp9', '-crf', '30', '-b:v', '0', '-deadline', 'realtime', '-cpu-used', '8', '-row-mt', '0']
    : ['-c:v', 'libx264', '-crf', '20', '-preset', 'veryfast'];
  const args = [
    '-y', '-loglevel', 'error', '-f', 'rawvideo', '-pix_fmt', 'rgba', '-s', `${o.width}x${o.height}`, '-framerate', String(o.fps), '-i', '-',
    '-vf', 'pad=ceil(iw/2)*2:ceil(ih/2)*2', ...codec, '-pix_fmt', 'yuv420p', '-an', '-threads', '1',
    '-fflags', '+bitexact', '-flags:v', '+bitexact', '-map_metadata', '-1', '-f', o.format, out,
  ];
  const ff = spawn(ffmpegBin(env), args, { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  ff.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
  const closed = new Promise<number | null>((resolve, reject) => {
    ff.once('error', (err: NodeJS.ErrnoException) => reject(missing(err, 'ffmpeg')));
    ff.once('close', resolve);
  });
  ff.stdin.on('error', () => {});
  let ended = false;
  void closed.then(() => (ended = true), () => (ended = true));
  try {
    for await (const f of frames) {
      for (let i = 0; i < f.ticks; i++) {
        if (ended) break;
        if (!ff.stdin.write(f.picture.data)) await Promise.race([new Promise((r) => ff.stdin.once('drain', r)), closed.catch(() => undefined)]);
      }
    }
    ff.stdin.end();
    const code = await closed;
    if (code !== 0) throw new TapedeckError('EXPORT_ERROR', `ffmpeg failed (exit ${code}): ${stderr.trim().slice(-500) || 'no message'}`);
    return readFileSync(out);
  } catch (err) {
    ff.kill('SIGKILL');
    await closed.catch(() => undefined);
    throw err;
  } finally {
    rmSync(out, { force: true });
  }
}

/** A video's frames as RGBA, one at a time, each shown 1 / its frame rate. */
export async function* decodeVideo(bytes: Buffer): AsyncGenerator<TimedPicture> {
  const path = join(tmpdir(), `tapedeck-vhs-${process.pid}-${randomBytes(4).toString('hex')}.video`);
  const { writeFileSync } = await import('node:fs');
  writeFileSync(path, bytes);
  try {
    const probe = spawnSync(ffprobeBin(), ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height,r_frame_rate', '-of', 'csv=p=0', path], { encoding: 'utf8' });
    if (probe.error) throw missing(probe.error as NodeJS.ErrnoException, 'ffprobe');
    const [w, h, rate] = probe.stdout.trim().split(',');
    const width = Number(w);
    const height = Number(h);
    const [num, den] = (rate ?? '').split('/').map(Number);
    const fps = num && den ? num / den : Number(num);
    if (!(width > 0 && height > 0 && fps > 0)) throw new TapedeckError('EXPORT_ERROR', `not a video ffprobe can read${probe.stderr ? `: ${probe.stderr.trim().slice(0, 300)}` : ''}`);
    const ff = spawn(ffmpegBin(), ['-loglevel', 'error', '-i', path, '-f', 'rawvideo', '-pix_fmt', 'rgba', '-'], { stdio: ['ignore', 'pipe', 'ignore'] });
    // Reaped before the generator returns: a caller that stops early leaves no ffmpeg (or zombie) behind.
    const closed = new Promise<void>((resolve, reject) => {
      ff.once('error', (err: NodeJS.ErrnoException) => reject(missing(err, 'ffmpeg')));
      ff.once('close', () => resolve());
    });
    const size = width * height * 4;
    let buf: Buffer = Buffer.alloc(0);
    try {
      for await (const chunk of ff.stdout as AsyncIterable<Buffer>) {
        buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
        while (buf.length >= size) {
          yield { picture: { width, height, data: new Uint8Array(buf.subarray(0, size)) }, ms: 1000 / fps };
          buf = buf.subarray(size);
        }
      }
    } finally {
      ff.kill('SIGKILL');
      await closed.catch(() => undefined);
    }
    await closed; // a spawn error (no ffmpeg) is the caller's to see
  } finally {
    rmSync(path, { force: true });
  }
}
