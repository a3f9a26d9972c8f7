import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { GifReader } from 'omggif';
import { PNG } from 'pngjs';
import { recordScript } from '../../src/recorder/terminal/script.js';
import { playCast } from '../../src/session/cast/play.js';
import { openCast } from '../../src/tape/asciicast/read.js';
import { profileForCast } from '../../src/render/profiles.js';
import { renderScreenPng } from '../../src/render/raster/index.js';
import { run, CLI, tapedeck, tapedeckInProcess, tempDir } from '../helpers/cli.js';
import { SOAK } from '../helpers/soak.js';

const temp = tempDir('tapedeck-gif-');
let bashCast: string;

beforeAll(async () => {
  // A real shell session: a prompt, typing, colours and bold from printf, a clear, more typing.
  bashCast = join(temp.dir, 'bash.cast');
  await recordScript({
    out: bashCast, command: 'bash', args: ['--norc', '--noprofile'], env: { PS1: 'demo$ ', HISTFILE: '', TERM: 'xterm-256color' }, cwd: temp.dir, rows: 8, cols: 40,
    steps: [
      { waitFor: 'demo$' },
      { type: 'printf "\\033[1;32mgreen\\033[0m \\033[41mred bg\\033[0m %s\\n" a b\r' },
      { waitFor: 'b\ndemo$' },
      { pause: 120 },
      ...[...'echo 中文 😀 done'].map((ch) => ({ type: ch })),
      { type: '\r' },
      { waitFor: 'done\ndemo$' },
      { marker: 'typed' },
      { type: 'clear\r' },
      { pause: 80 },
      { type: 'exit\r' },
    ],
  });
}, 60_000);
afterAll(() => temp.cleanup());

interface Decoded {
  frames: { start: number; delay: number; rect: { x: number; y: number; width: number; height: number }; pixels: Uint8Array }[];
  width: number;
  height: number;
  loop: number | null;
}

/** Every frame as the viewer sees it: drawn over the ones before (all frames keep what is under them). */
function decode(file: string): Decoded {
  const reader = new GifReader(readFileSync(file));
  const canvas = new Uint8Array(reader.width * reader.height * 4);
  const frames: Decoded['frames'] = [];
  let cs = 0;
  for (let i = 0; i < reader.numFrames(); i++) {
    const info = reader.frameInfo(i);
    expect(info.disposal).toBe(1);
    reader.decodeAndBlitFrameRGBA(i, canvas);
    frames.push({ start: cs / 100, delay: info.delay, rect: { x: info.x, y: info.y, width: info.width, height: info.height }, pixels: canvas.slice() });
    cs += info.delay;
  }
  return { frames, width: reader.width, height: reader.height, loop: reader.loopCount() ?? null };
}

/** `tapedeck screenshot --at SECONDS`'s pixels: the cast played to that time, drawn by the raster renderer. */
async function screenshotAt(cast: string, seconds: number): Promise<Uint8Array> {
  const played = await playCast(cast, { seconds }, { scrollback: 0 });
  try {
    const png = renderScreenPng(played.screen.snapshot({ includeCells: true }), { profile: profileForCast(undefined, played.header.theme) });
    return new Uint8Array(PNG.sync.read(png).data);
  } finally {
    played.screen.dispose();
  }
}

function castFile(name: string, header: object, events: unknown[][]): string {
  const file = join(temp.dir, name);
  writeFileSync(file, [JSON.stringify(header), ...events.map((e) => JSON.stringify(e))].join('\n') + '\n');
  return file;
}

describe('tapedeck export --format gif', () => {
  it('each frame of a real shell session equals the PNG screenshot of its moment, pixel for pixel', async () => {
    const out = join(temp.dir, 'bash.gif');
    const r = await tapedeck(['export', bashCast, '--format', 'gif', '--fps', '20', '--idle-time-limit', '1000', '--out', out, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout).result;
    const gif = decode(out);
    expect(result).toMatchObject({ format: 'gif', frames: gif.frames.length, width: gif.width, height: gif.height });
    expect(gif.frames.length).toBeGreaterThan(10); // one per change: keys echoed, output, the clear
    expect(gif.loop).toBe(0);
    // Only what changed is stored: after the first, frames are smaller than the screen.
    expect(gif.frames[0].rect).toEqual({ x: 0, y: 0, width: gif.width, height: gif.height });
    expect(gif.frames.slice(1).every((f) => f.rect.width * f.rect.height < gif.width * gif.height)).toBe(true);
    let previous: Uint8Array | null = null;
    let inexact = 0;
    for (const [i, frame] of gif.frames.entries()) {
      const expected = await screenshotAt(bashCast, frame.start);
      if (!Buffer.from(frame.pixels).equals(Buffer.from(expected))) {
        // Only a frame whose changed pixels have over 255 colours (antialiased text in several colour pairs) is
        // quantised; it is still the right screen, every pixel near its colour.
        inexact++;
        let near = 0;
        for (let p = 0; p < expected.length; p += 4) {
          if (Math.max(Math.abs(expected[p] - frame.pixels[p]), Math.abs(expected[p + 1] - frame.pixels[p + 1]), Math.abs(expected[p + 2] - frame.pixels[p + 2])) <= 24) near++;
        }
        expect(near / (expected.length / 4), `frame ${i} at ${frame.start}s`).toBeGreaterThan(0.995);
      }
      // A frame only where the screen changed.
      if (previous) expect(Buffer.from(previous).equals(Buffer.from(frame.pixels)), `frame ${i} repeats the one before`).toBe(false);
      previous = frame.pixels;
    }
    expect(inexact).toBeLessThanOrEqual(result.quantisedFrames);
    expect(inexact).toBeLessThan(gif.frames.length / 4);
    // The cast's timing: a frame starts within one slot (1/20 s) after the event it shows.
    // The cast's timing: the GIF lasts the cast (its last event) plus the one-second hold of the end.
    let castEnd = 0;
    for await (const e of (await openCast(bashCast)).events()) castEnd = e.time;
    const last = gif.frames.at(-1)!;
    const total = last.start + last.delay / 100;
    expect(total).toBeGreaterThanOrEqual(castEnd + 1 - 0.06);
    expect(total).toBeLessThanOrEqual(castEnd + 1 + 4 / 20);
    expect(total).toBeCloseTo(result.seconds, 1);
  });

  it('--speed, --idle-time-limit, --from/--to markers and --loop set the timing', async () => {
    const cast = castFile('timing.cast', { version: 2, width: 20, height: 3 }, [
      [0.5, 'o', 'a'], [1.0, 'o', 'b'], [11.0, 'o', 'c'], [11.5, 'm', 'mid'], [12.0, 'o', 'd'], [13.0, 'o', 'e'], [13.5, 'm', 'end'], [14.0, 'o', 'f'],
    ]);
    const a = join(temp.dir, 'timing.gif');
    expect((await tapedeckInProcess(['export', cast, '--format', 'gif', '--fps', '10', '--idle-time-limit', '2', '--speed', '2', '--out', a])).code).toBe(0);
    const g1 = decode(a);
    // Cast times 0.5 1 11 12 13 14, the 10 s pause cut to 2, then halved: 0.25 0.5 1.5 2 2.5 3; each shown from the next 1/10 s.
    expect(g1.frames.map((f) => f.start)).toEqual([0, 0.3, 0.5, 1.5, 2, 2.5, 3]);
    expect(g1.frames.at(-1)!.delay).toBe(100); // the end held for a second
    const b = join(temp.dir, 'from-to.gif');
    const r = await tapedeckInProcess(['export', cast, '--format', 'gif', '--fps', '10', '--from', 'mid', '--to', 'end', '--loop', '3', '--out', b, '--json']);
    expect(r.code).toBe(0);
    const g2 = decode(b);
    expect(g2.frames.map((f) => f.start)).toEqual([0, 0.5, 1.5]);
    expect(g2.frames.at(-1)!.delay).toBe(150); // to the --to marker (2.0), then the hold
    expect(g2.loop).toBe(2); // three plays: two repetitions
    expect(Buffer.from(g2.frames[0].pixels).equals(Buffer.from(await screenshotAt(cast, 11.5)))).toBe(true);
    expect(Buffer.from(g2.frames.at(-1)!.pixels).equals(Buffer.from(await screenshotAt(cast, 13.5)))).toBe(true);
    const c = join(temp.dir, 'once.gif');
    expect((await tapedeckInProcess(['export', cast, '--format', 'gif', '--from', '#1', '--to', '12.5', '--loop', '1', '--out', c])).code).toBe(0);
    const g3 = decode(c);
    expect(g3.loop).toBe(null); // played once: no loop extension
    expect(g3.frames.length).toBe(2);
  });

  it('an exact palette up to 256 colours, quantised past that (a 24-bit gradient)', async () => {
    const grad = Array.from({ length: 300 }, (_, i) => `\x1b[48;2;${i % 256};${255 - (i % 256)};${i < 256 ? 128 : 0}m `).join('') + '\x1b[0m';
    const cast = castFile('gradient.cast', { version: 2, width: 60, height: 7 }, [[0.1, 'o', 'plain text'], [0.5, 'o', `\r\n${grad}`]]);
    const out = join(temp.dir, 'gradient.gif');
    const r = await tapedeckInProcess(['export', cast, '--format', 'gif', '--fps', '10', '--out', out, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result.quantisedFrames).toBe(1);
    const gif = decode(out);
    expect(Buffer.from(gif.frames[1].pixels).equals(Buffer.from(await screenshotAt(cast, 0.1)))).toBe(true);
    // The gradient's frame is approximate (300 colours); the one a slot later sets every pixel right.
    expect(gif.frames.map((f) => f.start)).toEqual([0, 0.1, 0.5, 0.6]);
    const end = await screenshotAt(cast, 0.5);
    expect(Buffer.from(gif.frames[2].pixels).equals(Buffer.from(end))).toBe(false);
    expect(Buffer.from(gif.frames[3].pixels).equals(Buffer.from(end))).toBe(true);
  });

  it('a resized terminal keeps the GIF at its first size: smaller screens top-left, larger ones cropped', async () => {
    const cast = castFile('resize.cast', { version: 2, width: 30, height: 6 }, [
      [0.1, 'o', 'first screen, full size'], [0.5, 'r', '20x4'], [0.6, 'o', '\x1b[2J\x1b[Hsmall'], [1.0, 'r', '40x8'], [1.1, 'o', '\x1b[2J\x1b[Hbig screen now, wider than the first'],
    ]);
    const out = join(temp.dir, 'resize.gif');
    expect((await tapedeckInProcess(['export', cast, '--format', 'gif', '--fps', '10', '--out', out])).code).toBe(0);
    const gif = decode(out);
    const region = (frame: Uint8Array, w: number, h: number) => {
      const rows: Buffer[] = [];
      for (let y = 0; y < h; y++) rows.push(Buffer.from(frame.subarray(y * gif.width * 4, (y * gif.width + w) * 4)));
      return Buffer.concat(rows);
    };
    for (const at of [0.6, 1.1]) {
      const frame = gif.frames.filter((f) => f.start <= at + 0.1).at(-1)!;
      const played = await playCast(cast, { seconds: at }, { scrollback: 0 });
      const png = PNG.sync.read(renderScreenPng(played.screen.snapshot({ includeCells: true })));
      played.screen.dispose();
      const w = Math.min(png.width, gif.width);
      const h = Math.min(png.height, gif.height);
      const shot = Buffer.concat(Array.from({ length: h }, (_, y) => png.data.subarray(y * png.width * 4, (y * png.width + w) * 4)));
      expect(region(frame.pixels, w, h).equals(shot), `at ${at}s`).toBe(true);
      // Beyond a smaller screen: background only (the first screen's text is gone).
      if (png.width < gif.width) expect(new Set(new Uint32Array(frame.pixels.slice(0, gif.width * gif.height * 4).buffer).filter((_, i) => i % gif.width >= png.width)).size).toBe(1);
    }
  });

  it('bad input: an empty file, a header-only cast, a missing marker, bad flags, an unwritable path (exit 2, nothing left)', async () => {
    const empty = castFile('empty.cast', {}, []);
    writeFileSync(empty, '');
    const r1 = await tapedeckInProcess(['export', empty, '--format', 'gif', '--out', join(temp.dir, 'empty.gif')]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain('empty.cast');
    expect(r1.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(temp.dir, 'empty.gif'))).toBe(false);
    const headerOnly = castFile('header.cast', { version: 2, width: 10, height: 2 }, []);
    const blank = join(temp.dir, 'blank.gif');
    expect((await tapedeckInProcess(['export', headerOnly, '--format', 'gif', '--out', blank])).code).toBe(0);
    expect(decode(blank).frames.length).toBe(1);
    const r2 = await tapedeckInProcess(['export', headerOnly, '--format', 'gif', '--from', 'nope', '--out', join(temp.dir, 'm.gif')]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain('--from: no marker "nope"');
    for (const [flag, value] of [['--fps', '0'], ['--fps', '60'], ['--speed', '0'], ['--idle-time-limit', 'x'], ['--loop', '1.5']]) {
      const r = await tapedeckInProcess(['export', headerOnly, '--format', 'gif', flag, value, '--out', join(temp.dir, 'f.gif')]);
      expect(r.code, `${flag} ${value}`).toBe(2);
      expect(r.stderr).toContain(`export: ${flag} expects`);
    }
    const r3 = await tapedeckInProcess(['export', bashCast, '--format', 'gif', '--out', join(temp.dir, 'no-such-dir', 'x.gif')]);
    expect(r3.code).toBe(2);
    expect(r3.stderr).toMatch(/no-such-dir\/x\.gif: cannot write the GIF: no such directory/);
    const r4 = await tapedeckInProcess(['export', bashCast, '--format', 'gif', '--out', join(headerOnly, 'x.gif')]); // a file as the folder
    expect(r4.code).toBe(2);
    const huge = castFile('huge.cast', { version: 2, width: 1000, height: 1000 }, [[0.1, 'o', 'x']]);
    const r5 = await tapedeckInProcess(['export', huge, '--format', 'gif', '--out', join(temp.dir, 'huge.gif')]);
    expect(r5.code).toBe(2);
    expect(r5.stderr).toMatch(/huge\.cast: a 1000x1000 screen is \d+x\d+ pixels, too large to render/);
    expect(existsSync(join(temp.dir, 'huge.gif'))).toBe(false);
    expect(readdirSync(temp.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it(`a two-hour cast of ${SOAK ? '1,000,000' : '100,000'} events streams in bounded memory, idle time capped`, async () => {
    const events = SOAK ? 1_000_000 : 100_000;
    const bursts = events / 1000;
    const file = join(temp.dir, 'long.cast');
    const fd = openSync(file, 'w');
    writeSync(fd, `${JSON.stringify({ version: 2, width: 40, height: 10 })}\n`);
    let t = 0;
    // Bursts of 1000 events a millisecond apart (a counter redrawn in place, a line now and then), then a long pause.
    for (let b = 0; b < bursts; b++) {
      let chunk = '';
      for (let i = 0; i < 1000; i++) {
        t += 0.001;
        chunk += `[${t.toFixed(6)}, "o", ${JSON.stringify(i === 999 ? `\r\nburst ${b}\r\n` : `\r${b}:${i}`)}]\n`;
      }
      writeSync(fd, chunk);
      t += 7200 / bursts - 1;
    }
    closeSync(fd);
    const out = join(temp.dir, 'long.gif');
    // The bin in a process that reports its own peak RSS as it exits.
    const measured = join(temp.dir, 'maxrss.cjs');
    writeFileSync(measured, "process.on('exit', () => process.stderr.write('maxrss=' + process.resourceUsage().maxRSS + '\\n'));\n");
    const r = await run([process.execPath, '--require', measured, CLI, 'export', file, '--format', 'gif', '--fps', '2', '--out', out, '--json'], { timeoutMs: SOAK ? 600_000 : 55_000 });
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout).result;
    const rssMb = Number(/maxrss=(\d+)/.exec(r.stderr)![1]) / 1024;
    expect(rssMb).toBeLessThan(200); // the limit: one screen, two images, one frame; not the cast nor its frames
    // Pauses capped at 2 s: bursts x (1 s + 2 s) instead of two hours.
    expect(result.seconds).toBeGreaterThan(bursts * 3 - 5);
    expect(result.seconds).toBeLessThan(bursts * 3 + 5);
    expect(result.frames).toBeGreaterThanOrEqual(bursts * 2);
    expect(decode(out).frames.length).toBe(result.frames);
  }, SOAK ? 600_000 : 60_000);
});
