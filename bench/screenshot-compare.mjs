// Comparing two 1000x600 PNGs with tapedeck (decode both + pixelmatch count)
// versus raw pixelmatch on already-decoded RGBA buffers, same run.
// Target: ratio <= 1.5. The images are terminal-like: a dark background with
// text-sized blobs, and the second one has a few cells changed.
import pngjs from 'pngjs';
import pixelmatch from 'pixelmatch';
import { comparePngs } from '../dist/render/pixel-diff.js';
import { decodePng } from '../dist/render/pixel-diff-png.js';

const RUNS = Number(process.env.RUNS ?? 40);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const W = 1000;
const H = 600;

function screenImage(changedCells, seed = 42) {
  const data = Buffer.alloc(W * H * 4);
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
  for (let i = 0; i < data.length; i += 4) data.set([12, 12, 16, 255], i);
  for (let cy = 0; cy < H / 20; cy++) {
    for (let cx = 0; cx < W / 10; cx++) {
      const glyph = rand();
      if (glyph < 90) continue;
      const changed = changedCells.has(`${cx},${cy}`);
      for (let y = 3; y < 17; y++) for (let x = 1; x < 9; x++) {
        if (((x * 7 + y * 3 + glyph + (changed ? 2 : 0)) % 5) > 1) continue;
        const i = ((cy * 20 + y) * W + cx * 10 + x) * 4;
        data.set([200, 200, 190, 255], i);
      }
    }
  }
  return pngjs.PNG.sync.write({ width: W, height: H, data });
}

function measure(label, a, b) {
  const da = decodePng(a);
  const db = decodePng(b);
  const ours = [];
  const raw = [];
  let count = 0;
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    count = comparePngs(a, b, { maxDiffPixelRatio: 1 }).diffPixels;
    ours.push(performance.now() - t);
    t = performance.now();
    const n = pixelmatch(da.data, db.data, null, W, H, { threshold: 0.2 });
    raw.push(performance.now() - t);
    if (n !== count) throw new Error(`counts differ: ${count} vs ${n}`);
  }
  const m1 = median(ours);
  const m2 = median(raw);
  console.log(`compare 1000x600 PNGs, ${label} (${count} px differ): tapedeck median ${m1.toFixed(2)} ms, raw pixelmatch on decoded buffers median ${m2.toFixed(2)} ms, ratio ${(m1 / m2).toFixed(2)} (target <= 1.5)`);
}

const a = screenImage(new Set());
measure('a few cells changed', a, screenImage(new Set(['3,4', '50,10', '51,10', '90,25'])));
measure('another screen', a, screenImage(new Set(), 7));
measure('byte-identical files', a, Buffer.from(a));
