import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GifReader } from 'omggif';
import { PNG } from 'pngjs';
import { describe, expect, test } from 'vitest';
import { tapedeckInProcess } from '../helpers/cli.js';
import { useVhsProjects } from '../helpers/vhs.js';

/**
 * A tape's .gif, .webm, .mp4 and frames-folder Outputs: written from the run's
 * timeline (typing at 50 ms a key, Sleep, Framerate, PlaybackSpeed,
 * LoopOffset, Hide), drawn in VHS's window by the raster renderer, then
 * checked as goldens as they play (GIF frames and frame PNGs by pixels, the
 * videos by their frames decoded with ffmpeg). Small images and 10 frames a
 * second keep it cheap.
 */
const { project, vhs } = useVhsProjects('media');

const STYLE = ['Set Width 320', 'Set Height 160', 'Set FontSize 12', 'Set Padding 10', 'Set Framerate 10', 'Set Margin 10', 'Set MarginFill "#6B50FF"', 'Set WindowBar Colorful', 'Set BorderRadius 8'];
// Timeline: 7 keys x 50 ms + Enter 50 ms + 600 ms = 1 s: 10 frames at 10 a second.
const tape = (word: string, extra: string[] = []) => [...extra, ...STYLE, `Type "echo ${word}"`, 'Enter', 'Sleep 600ms', ''].join('\n');

/** The commands of this process's children, as ps shows them (a zombie too). */
function childCommands(): string[] {
  return spawnSync('ps', ['-o', 'comm=', '--ppid', String(process.pid)], { encoding: 'utf8' }).stdout.split('\n').map((l) => l.trim()).filter((l) => l !== '' && l !== 'ps');
}

function gifFrames(file: string): { delays: number[]; last: Uint8Array; first: Uint8Array; width: number; height: number } {
  const r = new GifReader(readFileSync(file));
  const px = new Uint8Array(r.width * r.height * 4);
  const delays: number[] = [];
  let first = new Uint8Array(0);
  for (let i = 0; i < r.numFrames(); i++) {
    r.decodeAndBlitFrameRGBA(i, px);
    if (i === 0) first = px.slice();
    delays.push(r.frameInfo(i).delay);
  }
  return { delays, last: px, first, width: r.width, height: r.height };
}
const pixel = (png: PNG, x: number, y: number) => `#${[0, 1, 2].map((k) => png.data[(y * png.width + x) * 4 + k].toString(16).padStart(2, '0')).join('')}`;

describe('tapedeck vhs: GIF, video and frames outputs', () => {
  test('written from the timeline in VHS\'s window, matched on a rerun under CI (a re-encoded video by its decoded frames), drift exit 1 with TD1205, review, -u rewrites', async () => {
    const outputs = ['Output d.gif', 'Output d.webm', 'Output d.mp4', 'Output frames/'];
    const dir = project({ 'd.tape': tape('hi', outputs) });
    const first = await vhs(dir, ['d.tape']);
    expect(first.stderr).toContain('wrote frames/ (10 frames)');
    expect(first.code, first.stderr).toBe(0);
    // The frames: one PNG per 100 ms tick, 320x160, the window on the margin, the bar's dots, rounded corners.
    const names = readdirSync(join(dir, 'frames')).sort();
    expect(names).toEqual(Array.from({ length: 10 }, (_, i) => `frame-${String(i + 1).padStart(5, '0')}.png`));
    const last = PNG.sync.read(readFileSync(join(dir, 'frames', names[9])));
    expect([last.width, last.height]).toEqual([320, 160]);
    expect(pixel(last, 2, 2)).toBe('#6b50ff'); // margin
    expect(pixel(last, 10, 10)).toBe('#6b50ff'); // the window's rounded corner shows the margin
    expect(pixel(last, 150, 80)).toBe('#171717'); // VHS's default theme background
    expect(pixel(last, 10 + 15, 10 + 15)).toBe('#ff4f4d'); // the first dot of the Colorful bar (30 px: radius 5, gap 10)
    // The GIF: the same 1 s (10 ticks of 10 cs, identical neighbours merged), its last frame the last frame PNG.
    const gif = gifFrames(join(dir, 'd.gif'));
    expect(gif.delays.reduce((a, b) => a + b, 0)).toBe(100);
    expect(gif.delays.length).toBeLessThan(10);
    const lastRgba = Buffer.from(last.data);
    expect(Buffer.from(gif.last).equals(lastRgba)).toBe(true);
    // The videos: 10 frames of 320x160 at 10 fps.
    for (const f of ['d.webm', 'd.mp4']) {
      const probe = spawnSync('ffprobe', ['-v', 'error', '-count_frames', '-show_entries', 'stream=width,height,nb_read_frames,r_frame_rate', '-of', 'csv=p=0', join(dir, f)], { encoding: 'utf8' });
      expect(probe.stdout.trim()).toBe('320,160,10/1,10');
    }
    // The .mp4 re-encoded by another encoder setting: not the same bytes, the same pictures (decoded frames) within the threshold.
    const ff = spawnSync('ffmpeg', ['-loglevel', 'error', '-i', join(dir, 'd.mp4'), '-c:v', 'libx264', '-crf', '12', '-pix_fmt', 'yuv420p', join(dir, 'v2.mp4')]);
    expect(ff.status).toBe(0);
    const reencoded = readFileSync(join(dir, 'v2.mp4'));
    expect(reencoded.equals(readFileSync(join(dir, 'd.mp4')))).toBe(false);
    writeFileSync(join(dir, 'd.mp4'), reencoded);
    const before = Object.fromEntries(['d.gif', 'd.webm', 'd.mp4'].map((f) => [f, statSync(join(dir, f)).mtimeMs]));
    const again = await vhs(dir, ['d.tape'], { CI: 'true' });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/matches d\.gif[\s\S]*matches d\.webm[\s\S]*matches d\.mp4[\s\S]*matches frames\/ \(10 frames\)/);
    for (const f of Object.keys(before)) expect(statSync(join(dir, f)).mtimeMs).toBe(before[f]);

    writeFileSync(join(dir, 'd.tape'), tape('yo', outputs));
    const drift = await vhs(dir, ['d.tape', '--json']);
    expect(drift.code).toBe(1);
    const codes = drift.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { code: string }).code);
    expect(codes).toEqual(['TD1205', 'TD1205', 'TD1205', 'TD1205']);
    // The video comparisons stopped at the first differing frame: their ffmpeg decoders are gone, zombies included (this process ran them).
    expect(childCommands()).not.toContain('ffmpeg');
    expect(drift.stderr).toMatch(/d\.gif differs: at 0\.\d+ s: \d+ pixels differ/);
    expect(drift.stderr).toMatch(/frames\/: \d+ of 10 frames differ/);
    expect(existsSync(join(dir, 'd.gif.new'))).toBe(true);
    const review = await tapedeckInProcess(['review', dir, '--accept', join(dir, 'd.gif')], { cwd: dir });
    expect(review.code, review.stderr).toBe(0);
    expect(existsSync(join(dir, 'd.gif.new'))).toBe(false);
    const update = await vhs(dir, ['d.tape', '-u']);
    expect(update.code, update.stderr).toBe(0);
    expect(update.stderr).toMatch(/matches d\.gif[\s\S]*updated golden d\.webm[\s\S]*updated golden d\.mp4[\s\S]*updated frames\/ \(10 frames\)/);
  });

  test('PlaybackSpeed shortens the frames, LoopOffset starts the loop later, a hidden stretch has no frames, a JSON theme; on CI a missing output fails, an unreadable one drifts', async () => {
    const theme = 'Set Theme { "background": "#102030", "foreground": "#ffffff" }';
    const dir = project({ 's.tape': tape('hi', ['Output s.gif', 'Output f/', 'Set PlaybackSpeed 2', 'Set LoopOffset 50%', theme]).replace('Enter\n', 'Enter\nHide\nSleep 5s\nShow\n') });
    const r = await vhs(dir, ['s.tape']);
    expect(r.code, r.stderr).toBe(0);
    // Hide ... Show took 5 s of timeline and no frame: still 10 frames, each 5 cs at speed 2.
    expect(readdirSync(join(dir, 'f')).length).toBe(10);
    const gif = gifFrames(join(dir, 's.gif'));
    expect(gif.delays.reduce((a, b) => a + b, 0)).toBe(50);
    // Frame 6 (of 10) comes first: the GIF opens on frame-00001.png, which is the run's sixth frame.
    const f1 = PNG.sync.read(readFileSync(join(dir, 'f', 'frame-00001.png')));
    expect(pixel(f1, 150, 120)).toBe('#102030'); // the JSON theme's background
    expect(Buffer.from(gif.first).equals(Buffer.from(f1.data))).toBe(true);
    // The run's first frame (one key typed) is the sixth of the loop.
    const f6 = PNG.sync.read(readFileSync(join(dir, 'f', 'frame-00006.png')));
    expect(Buffer.from(f1.data).equals(Buffer.from(f6.data))).toBe(false);
    const ci = project({ 's.tape': tape('hi', ['Output s.gif', 'Output t.gif', 'Set Theme "Dracula"']), 't.gif': 'not a gif' });
    const missing = await vhs(ci, ['s.tape', '--json'], { CI: 'true' });
    expect(missing.code).toBe(1);
    expect(missing.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { code: string }).code)).toEqual(['TD1203', 'TD1205']);
    expect(existsSync(join(ci, 's.gif'))).toBe(false);
    expect(missing.stderr).toMatch(/t\.gif differs: the existing t\.gif cannot be read/);
    expect(missing.stderr).toContain('note s.tape:1: Theme "Dracula": tapedeck knows only VHS\'s default theme by name');
    // No ffmpeg for a video Output: an error naming its line before anything runs, and no other output written.
    const noff = project({ 'x.tape': tape('hi', ['Output x.gif', 'Output x.mp4']) });
    const r2 = await vhs(noff, ['x.tape'], { TAPEDECK_FFMPEG: '/no/such/ffmpeg' });
    expect(r2.stderr).toMatch(/x\.tape:2: a video Output needs ffmpeg, and "\/no\/such\/ffmpeg" is not on PATH/);
    expect(r2.code).toBe(2);
    expect(existsSync(join(noff, 'x.gif'))).toBe(false);
  });
});
