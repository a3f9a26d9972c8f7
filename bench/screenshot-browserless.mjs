// A browserless renderer, measured against the browser path (prototype, bench only).
//
// It draws the cell grid directly in Node: DejaVu Sans Mono's TrueType outlines
// (the pinned dejavu-fonts-ttf package) are parsed and rasterised here with a
// minimal signed-area coverage rasteriser (no hinting, greyscale), each glyph
// once per style; cells are filled and glyphs blended in; the PNG is encoded
// with node:zlib. No npm package fits: opentype.js and fontkit parse fonts but
// do not rasterise, pureimage (a canvas clone on opentype.js) is slow and its
// anti-aliasing is coarse, @napi-rs/canvas and canvas are native, not pure JS.
//
// What it does not do (the browser path does): fallback fonts (CJK from Noto
// Sans SC, emoji from Noto Emoji: those are WOFF2 files), ligature-free text
// shaping, xterm.js's exact glyph placement (fractional advance and baseline
// snapping in Skia). Characters DejaVu lacks are left blank.
//
// Prints: time per warm 120x40 screenshot (browser vs cells-node, same run,
// median of RUNS) and, for a few test screens, how far cells-node's PNG is from
// the browser's (comparePngs at the default threshold 0.2: differing pixels and
// their ratio).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { Screen } from '../dist/session/screen/screen.js';
import { closeRenderer, renderSnapshot } from '../dist/render/browser/renderer.js';
import { comparePngs } from '../dist/render/pixel/diff.js';
import { PROFILES } from '../dist/render/profiles.js';
import { paletteRgb } from '../dist/session/screen/colors.js';
import { packageDir } from '../dist/render/browser/fonts.js';

const RUNS = Number(process.env.RUNS ?? 40);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// ---------------------------------------------------------------- TrueType

function parseTtf(buf) {
  const tables = {};
  const n = buf.readUInt16BE(4);
  for (let i = 0; i < n; i++) {
    const o = 12 + i * 16;
    tables[buf.toString('latin1', o, o + 4)] = { off: buf.readUInt32BE(o + 8), len: buf.readUInt32BE(o + 12) };
  }
  const head = tables.head.off;
  const unitsPerEm = buf.readUInt16BE(head + 18);
  const longLoca = buf.readInt16BE(head + 50) === 1;
  const hhea = tables.hhea.off;
  const ascender = buf.readInt16BE(hhea + 4);
  const descender = buf.readInt16BE(hhea + 6);
  const numGlyphs = buf.readUInt16BE(tables.maxp.off + 4);
  const loca = (g) => (longLoca ? buf.readUInt32BE(tables.loca.off + g * 4) : buf.readUInt16BE(tables.loca.off + g * 2) * 2);
  // cmap: format 4 (BMP) and 12 (full) subtables of platform 3 or 0.
  const cmap = tables.cmap.off;
  const map = new Map();
  const subtables = buf.readUInt16BE(cmap + 2);
  for (let i = 0; i < subtables; i++) {
    const platform = buf.readUInt16BE(cmap + 4 + i * 8);
    const off = cmap + buf.readUInt32BE(cmap + 8 + i * 8);
    const format = buf.readUInt16BE(off);
    if (platform !== 3 && platform !== 0) continue;
    if (format === 4) {
      const segX2 = buf.readUInt16BE(off + 6);
      const ends = off + 14;
      const starts = ends + segX2 + 2;
      const deltas = starts + segX2;
      const ranges = deltas + segX2;
      for (let s = 0; s < segX2 / 2; s++) {
        const end = buf.readUInt16BE(ends + s * 2);
        const start = buf.readUInt16BE(starts + s * 2);
        const delta = buf.readInt16BE(deltas + s * 2);
        const range = buf.readUInt16BE(ranges + s * 2);
        for (let c = start; c <= end && c !== 0xffff; c++) {
          let g;
          if (range === 0) g = (c + delta) & 0xffff;
          else {
            g = buf.readUInt16BE(ranges + s * 2 + range + (c - start) * 2);
            if (g) g = (g + delta) & 0xffff;
          }
          if (g && !map.has(c)) map.set(c, g);
        }
      }
    } else if (format === 12) {
      const groups = buf.readUInt32BE(off + 12);
      for (let k = 0; k < groups; k++) {
        const o = off + 16 + k * 12;
        const start = buf.readUInt32BE(o);
        const end = buf.readUInt32BE(o + 4);
        const g0 = buf.readUInt32BE(o + 8);
        for (let c = start; c <= end; c++) if (!map.has(c)) map.set(c, g0 + c - start);
      }
    }
  }
  /** Contours of glyph g: arrays of { x, y, on } in font units. */
  function contours(g, depth = 0) {
    if (g >= numGlyphs || depth > 8) return [];
    const start = loca(g);
    const end = loca(g + 1);
    if (end <= start) return [];
    let p = tables.glyf.off + start;
    const nc = buf.readInt16BE(p);
    p += 10;
    if (nc < 0) {
      // Composite: components with x/y offsets (and a scale, when given).
      const out = [];
      let flags;
      do {
        flags = buf.readUInt16BE(p);
        const glyph = buf.readUInt16BE(p + 2);
        p += 4;
        let dx, dy;
        if (flags & 1) {
          dx = buf.readInt16BE(p);
          dy = buf.readInt16BE(p + 2);
          p += 4;
        } else {
          dx = buf.readInt8(p);
          dy = buf.readInt8(p + 1);
          p += 2;
        }
        let a = 1, b = 0, c = 0, d = 1;
        if (flags & 8) {
          a = d = buf.readInt16BE(p) / 16384;
          p += 2;
        } else if (flags & 0x40) {
          a = buf.readInt16BE(p) / 16384;
          d = buf.readInt16BE(p + 2) / 16384;
          p += 4;
        } else if (flags & 0x80) {
          a = buf.readInt16BE(p) / 16384;
          b = buf.readInt16BE(p + 2) / 16384;
          c = buf.readInt16BE(p + 4) / 16384;
          d = buf.readInt16BE(p + 6) / 16384;
          p += 8;
        }
        for (const contour of contours(glyph, depth + 1)) {
          out.push(contour.map((pt) => ({ x: a * pt.x + c * pt.y + dx, y: b * pt.x + d * pt.y + dy, on: pt.on })));
        }
      } while (flags & 0x20);
      return out;
    }
    const endPts = [];
    for (let i = 0; i < nc; i++) endPts.push(buf.readUInt16BE(p + i * 2));
    p += nc * 2;
    const nPts = nc ? endPts[nc - 1] + 1 : 0;
    p += 2 + buf.readUInt16BE(p); // instructions
    const flags = [];
    while (flags.length < nPts) {
      const f = buf[p++];
      flags.push(f);
      if (f & 8) for (let r = buf[p++]; r > 0; r--) flags.push(f);
    }
    const xs = [];
    let v = 0;
    for (const f of flags) {
      if (f & 2) v += f & 16 ? buf[p++] : -buf[p++];
      else if (!(f & 16)) { v += buf.readInt16BE(p); p += 2; }
      xs.push(v);
    }
    const ys = [];
    v = 0;
    for (const f of flags) {
      if (f & 4) v += f & 32 ? buf[p++] : -buf[p++];
      else if (!(f & 32)) { v += buf.readInt16BE(p); p += 2; }
      ys.push(v);
    }
    const out = [];
    let s = 0;
    for (const e of endPts) {
      const contour = [];
      for (let i = s; i <= e; i++) contour.push({ x: xs[i], y: ys[i], on: (flags[i] & 1) === 1 });
      out.push(contour);
      s = e + 1;
    }
    return out;
  }
  return { unitsPerEm, ascender, descender, glyphOf: (cp) => map.get(cp) ?? 0, hasGlyph: (cp) => map.has(cp), contours };
}

// ------------------------------------------------------------- rasteriser

/** Signed-area coverage accumulation (as font-rs does): lines into an accumulator, then a running sum per row. */
function rasterise(segments, w, h) {
  const W = w + 2;
  const acc = new Float32Array(W * h + 2);
  for (const [x0, y0, x1, y1] of segments) line(acc, W, h, x0, y0, x1, y1);
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    let sum = 0;
    for (let x = 0; x < w; x++) {
      sum += acc[y * W + x];
      const c = Math.min(1, Math.abs(sum));
      out[y * w + x] = Math.round(c * 255);
    }
  }
  return out;
}

function line(acc, W, h, ax, ay, bx, by) {
  if (Math.abs(ay - by) < 1e-9) return;
  let dir = 1;
  if (ay > by) {
    [ax, ay, bx, by] = [bx, by, ax, ay];
    dir = -1;
  }
  const dxdy = (bx - ax) / (by - ay);
  let x = ax;
  if (ay < 0) x -= ay * dxdy;
  for (let y = Math.max(0, Math.floor(ay)); y < Math.min(h, Math.ceil(by)); y++) {
    const base = y * W;
    const dy = Math.min(y + 1, by) - Math.max(y, ay);
    const xnext = x + dxdy * dy;
    const d = dy * dir;
    const x0 = Math.max(0, Math.min(x, xnext));
    const x1 = Math.max(0, Math.max(x, xnext));
    const x0f = Math.floor(x0);
    const x0i = x0f;
    const x1c = Math.ceil(x1);
    const x1i = x1c;
    if (x1i <= x0i + 1) {
      const xmf = 0.5 * (x + xnext) - x0f;
      acc[base + x0i] += d - d * xmf;
      acc[base + x0i + 1] += d * xmf;
    } else {
      const s = 1 / (x1 - x0);
      const x0r = x0 - x0f;
      const a0 = 0.5 * s * (1 - x0r) * (1 - x0r);
      const x1r = x1 - x1c + 1;
      const am = 0.5 * s * x1r * x1r;
      acc[base + x0i] += d * a0;
      if (x1i === x0i + 2) acc[base + x0i + 1] += d * (1 - a0 - am);
      else {
        const a1 = s * (1.5 - x0r);
        acc[base + x0i + 1] += d * (a1 - a0);
        for (let xi = x0i + 2; xi < x1i - 1; xi++) acc[base + xi] += d * s;
        const a2 = a1 + (x1i - x0i - 3) * s;
        acc[base + x1i - 1] += d * (1 - a2 - am);
      }
      acc[base + x1i] += d * am;
    }
    x = xnext;
  }
}

/** A glyph's outline as line segments in pixel space (y down), origin (ox, baseline). */
function outlineSegments(font, cp, scale, ox, baseline, skew = 0) {
  const segs = [];
  const tx = (pt) => [ox + (pt.x + skew * pt.y) * scale, baseline - pt.y * scale];
  for (const contour of font.contours(font.glyphOf(cp))) {
    if (!contour.length) continue;
    // Expand implied on-curve points between two off-curve points.
    const pts = [];
    for (let i = 0; i < contour.length; i++) {
      const a = contour[i];
      const b = contour[(i + 1) % contour.length];
      pts.push(a);
      if (!a.on && !b.on) pts.push({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, on: true });
    }
    let startIdx = pts.findIndex((p) => p.on);
    if (startIdx < 0) continue;
    const seq = [...pts.slice(startIdx), ...pts.slice(0, startIdx), pts[startIdx]];
    let [cx, cy] = tx(seq[0]);
    for (let i = 1; i < seq.length; i++) {
      const p = seq[i];
      if (p.on) {
        const [nx, ny] = tx(p);
        segs.push([cx, cy, nx, ny]);
        [cx, cy] = [nx, ny];
      } else {
        const [qx, qy] = tx(p);
        const [ex, ey] = tx(seq[i + 1]);
        const n = Math.max(2, Math.ceil(Math.sqrt(Math.hypot(cx - 2 * qx + ex, cy - 2 * qy + ey) * 4)));
        for (let k = 1; k <= n; k++) {
          const t = k / n;
          const mt = 1 - t;
          const px = mt * mt * cx + 2 * mt * t * qx + t * t * ex;
          const py = mt * mt * cy + 2 * mt * t * qy + t * t * ey;
          segs.push([cx, cy, px, py]);
          [cx, cy] = [px, py];
        }
        i++;
      }
    }
  }
  return segs;
}

// ------------------------------------------------------------- cell renderer

const fontDir = join(packageDir('dejavu-fonts-ttf'), 'ttf');
const FONTS = {
  regular: parseTtf(readFileSync(join(fontDir, 'DejaVuSansMono.ttf'))),
  bold: parseTtf(readFileSync(join(fontDir, 'DejaVuSansMono-Bold.ttf'))),
  italic: parseTtf(readFileSync(join(fontDir, 'DejaVuSansMono-Oblique.ttf'))),
  boldItalic: parseTtf(readFileSync(join(fontDir, 'DejaVuSansMono-BoldOblique.ttf'))),
};

function hexRgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function cellsRenderer(profile) {
  const font = FONTS.regular;
  const scale = profile.fontSize / font.unitsPerEm;
  const cw = 9; // xterm's cell width for DejaVu Sans Mono 15px (advance 9.03 px, letter-spacing makes it 9)
  const ch = Math.ceil(((font.ascender - font.descender) * scale) * profile.lineHeight);
  const baseline = Math.round((ch - (font.ascender - font.descender) * scale) / 2 + font.ascender * scale);
  const glyphs = new Map();
  const glyph = (char, bold, italic, cells) => {
    const key = `${char}|${bold}|${italic}|${cells}`;
    let g = glyphs.get(key);
    if (!g) {
      const f = bold ? (italic ? FONTS.boldItalic : FONTS.bold) : italic ? FONTS.italic : FONTS.regular;
      const cp = char.codePointAt(0);
      const w = cw * cells;
      g = f.hasGlyph(cp) ? rasterise(outlineSegments(f, cp, scale, 0, baseline), w, ch) : null;
      glyphs.set(key, g);
    }
    return g;
  };
  const theme = profile.theme;
  const colours = new Map();
  const colourOf = (c, fallback) => {
    const key = c.kind === 'palette' ? c.index : c.kind === 'rgb' ? c.rgb : fallback;
    let rgb = colours.get(key);
    if (!rgb) {
      if (c.kind === 'palette' && c.index !== undefined) rgb = hexRgb(c.index < 16 ? theme.ansi[c.index] : paletteRgb(c.index));
      else if (c.kind === 'rgb' && c.rgb) rgb = hexRgb(c.rgb);
      else rgb = hexRgb(fallback);
      colours.set(key, rgb);
    }
    return rgb;
  };
  return (snap, { cursor = 'auto' } = {}) => {
    const pad = profile.padding;
    const width = pad * 2 + snap.cols * cw;
    const height = pad * 2 + snap.rows * ch;
    const line = width * 3 + 1;
    const raw = Buffer.allocUnsafe(line * height);
    const bg0 = hexRgb(theme.background);
    for (let x = 0; x < width; x++) raw.set(bg0, 1 + x * 3);
    raw[0] = 0;
    for (let y = 1; y < height; y++) raw.copy(raw, y * line, 0, line);
    const cursorOn = cursor === 'show' || (cursor === 'auto' && snap.cursor.visible);
    for (let r = 0; r < snap.rows; r++) {
      for (let c = 0; c < snap.cols; c++) {
        const cell = snap.cells[r][c];
        if (cell.width === 0) continue;
        let fgc = cell.fg;
        if (cell.bold && fgc.kind === 'palette' && fgc.index !== undefined && fgc.index < 8) fgc = { kind: 'palette', index: fgc.index + 8 };
        let fg = colourOf(fgc, theme.foreground);
        let bg = colourOf(cell.bg, theme.background);
        if (cell.inverse) [fg, bg] = [bg, fg];
        if (cursorOn && r === snap.cursor.row && c === snap.cursor.col) [fg, bg] = [hexRgb(theme.cursorAccent), hexRgb(theme.cursor)];
        if (cell.dim) fg = fg.map((v, i) => Math.round((v + bg[i]) / 2));
        const x0 = pad + c * cw;
        const y0 = pad + r * ch;
        const w = cw * cell.width;
        for (let y = 0; y < ch; y++) {
          let o = (y0 + y) * line + 1 + x0 * 3;
          for (let x = 0; x < w; x++, o += 3) {
            raw[o] = bg[0];
            raw[o + 1] = bg[1];
            raw[o + 2] = bg[2];
          }
        }
        const g = cell.char && cell.char !== ' ' && !cell.invisible ? glyph(cell.char, cell.bold, cell.italic, cell.width) : null;
        if (g) {
          for (let y = 0; y < ch; y++) {
            let o = (y0 + y) * line + 1 + x0 * 3;
            for (let x = 0; x < w; x++, o += 3) {
              const a = g[y * w + x];
              if (!a) continue;
              raw[o] = (fg[0] * a + bg[0] * (255 - a) + 127) / 255;
              raw[o + 1] = (fg[1] * a + bg[1] * (255 - a) + 127) / 255;
              raw[o + 2] = (fg[2] * a + bg[2] * (255 - a) + 127) / 255;
            }
          }
        }
        if (cell.underline) {
          const o = (y0 + baseline + 2) * line + 1 + x0 * 3;
          for (let x = 0; x < w; x++) raw.set(fg, o + x * 3);
        }
      }
    }
    // Filter: Up where the row above is identical (all zeros then), else Sub; deflate at level 6.
    const filtered = Buffer.allocUnsafe(raw.length);
    raw.copy(filtered, 0, 0, line);
    filtered[0] = 0;
    for (let y = 1; y < height; y++) {
      const o = y * line;
      if (raw.compare(raw, o + 1, o + line, o + 1 - line, o) === 0) {
        filtered[o] = 2;
        filtered.fill(0, o + 1, o + line);
      } else {
        filtered[o] = 1; // Sub: runs of one colour become zeros
        for (let i = o + 1; i < o + 4; i++) filtered[i] = raw[i];
        for (let i = o + 4; i < o + line; i++) filtered[i] = raw[i] - raw[i - 3];
      }
    }
    return { png: encodePng(width, height, deflateSync(filtered, { level: 6 })), width, height };
  };
}

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
function encodePng(w, h, idat) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

// ------------------------------------------------------------- measure

async function snapOf(text, rows, cols) {
  const s = new Screen({ rows, cols, scrollback: 0 });
  await s.write(text);
  const snap = s.snapshot({ includeCells: true });
  s.dispose();
  return snap;
}

let bench = '';
for (let r = 0; r < 40; r++) {
  bench += `\x1b[${31 + (r % 7)}m${String(r).padStart(3)} ` + 'lorem ipsum dolor sit amet │ '.repeat(4).slice(0, 100) + `\x1b[0m \x1b[48;5;${16 + r * 5}m    \x1b[0m`;
  if (r < 39) bench += '\r\n';
}
const SCREENS = {
  'bench 120x40': [bench, 40, 120],
  'plain prompt 80x24': ['$ ls -la\r\ntotal 12\r\ndrwxr-xr-x 2 user user 4096 Jan  1 12:00 .\r\n-rw-r--r-- 1 user user  220 Jan  1 12:00 .bashrc\r\n$ ', 24, 80],
  'styles + box drawing 40x8': ['plain \x1b[1mbold\x1b[0m \x1b[3mitalic\x1b[0m \x1b[4munder\x1b[0m \x1b[7minverse\x1b[0m\r\n\x1b[48;5;21m  \x1b[48;2;10;200;120m  \x1b[0m \x1b[38;2;255;140;0mtruecolour\x1b[0m\r\n┌──┬──┐ ╔══╗ ▁▂▃▄▅▆▇█ ░▒▓\r\n│ab│cd│ ║ok║\r\n└──┴──┘ ╚══╝', 8, 40],
  'CJK + emoji 30x4 (no fallback fonts)': ['中文 日本語 かな\r\n😀 🎉 👍 ✅', 4, 30],
};

const profile = PROFILES.dark;
const renderCells = cellsRenderer(profile);
const outDir = new URL('./out/browserless/', import.meta.url).pathname;
mkdirSync(outDir, { recursive: true });

for (const [name, [text, rows, cols]] of Object.entries(SCREENS)) {
  const snap = await snapOf(text, rows, cols);
  const browser = await renderSnapshot(snap, { profile });
  const cells = renderCells(snap);
  const r = comparePngs(browser.png, cells.png, { maxDiffPixelRatio: 1 });
  const file = name.replace(/[^a-z0-9]+/gi, '-');
  writeFileSync(join(outDir, `${file}.browser.png`), browser.png);
  writeFileSync(join(outDir, `${file}.cells.png`), cells.png);
  console.log(`${name}: browser ${browser.pixelWidth}x${browser.pixelHeight}, cells-node ${cells.width}x${cells.height}; ${r.sizeMismatch ? 'size differs' : `${r.diffPixels} px differ, ratio ${r.diffRatio.toFixed(4)}`}`);
}

const snap = await snapOf(bench, 40, 120);
for (let i = 0; i < 5; i++) {
  await renderSnapshot(snap);
  renderCells(snap);
}
const tb = [];
const tc = [];
let size = 0;
for (let i = 0; i < RUNS; i++) {
  let t = performance.now();
  await renderSnapshot(snap);
  tb.push(performance.now() - t);
  t = performance.now();
  size = renderCells(snap).png.length;
  tc.push(performance.now() - t);
}
await closeRenderer();
console.log(`warm 120x40 screenshot, median of ${RUNS}: browser ${median(tb).toFixed(1)} ms, cells-node ${median(tc).toFixed(1)} ms (${size} B PNG), ${(median(tb) / median(tc)).toFixed(1)}x faster`);
