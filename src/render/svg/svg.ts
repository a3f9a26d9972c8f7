import { limitError, limit } from '../../core/config/limits.js';
import type { FileLocation } from '../../core/diagnostics/errors.js';
import type { ScreenSnapshot, SnapshotCell } from '../../session/screen/screen.js';
import { resolveProfile, type RenderProfile } from '../profiles.js';
import type { CursorMode } from '../browser/repaint.js';
import { cellPaint, underlineColour, underlineStyle } from './colors.js';
import { assignGlyphs, fallbackChain, monoMetrics, subsetFont, type FontSource } from './fonts.js';
import { fmt, shapeOf } from './shapes.js';
import { Decorations, TextRun } from './runs.js';

/**
 * A screen as an SVG document: the cell grid with real text (one <text> per
 * style run, every cell's x given, each glyph centred in its cell so the
 * layout holds whatever font the viewer ends up with), backgrounds merged per
 * run, lines and blocks drawn as shapes, and the glyphs it uses of the pinned
 * fonts embedded as WOFF2 subsets (data: URLs, allowed where an SVG is shown
 * as an image, as GitHub does).
 */
export interface SvgOptions {
  profile?: string | RenderProfile;
  cursor?: CursorMode;
  /** Cell size in pixels (default: the profile's font, as the PNG renderer measures it). */
  cell?: { width: number; height: number };
  padding?: { x: number; y: number };
  source?: FileLocation;
}

export interface RenderedSvg {
  svg: string;
  width: number;
  height: number;
  cell: { width: number; height: number };
  padding: { x: number; y: number };
  cursorVisible: boolean;
  profileName: string;
  /** The embedded subsets: family in the SVG, font file, characters. */
  fonts: { family: string; file: string; chars: string }[];
}

export const SVG_RENDERER = 'tapedeck-svg';

/** DejaVu Sans Mono's advance (1233 of 2048 units), which sets the cell width. */
const ADVANCE_EM = 1233 / 2048;

export async function renderSnapshotSvg(snap: ScreenSnapshot, options: SvgOptions = {}): Promise<RenderedSvg> {
  if (!snap.cells) throw new Error('renderSnapshotSvg: the snapshot needs cells (snapshot({ includeCells: true }))');
  const profile = resolveProfile(options.profile);
  const metrics = await monoMetrics(profile.fontSize);
  // The raster renderer's cell (render/raster/glyphs.ts cellMetrics), so an SVG and a PNG of a screen line up.
  const content = metrics.ascent + metrics.descent;
  const cell = options.cell ?? { width: Math.max(1, Math.floor(profile.fontSize * ADVANCE_EM)), height: Math.max(1, Math.floor(Math.ceil(content) * profile.lineHeight)) };
  const padding = options.padding ?? { x: profile.padding, y: profile.padding };
  const width = snap.cols * cell.width + 2 * padding.x;
  const height = snap.rows * cell.height + 2 * padding.y;
  if (width * height > limit('maxScreenshotPixels')) {
    throw limitError('maxScreenshotPixels', `a ${snap.cols}x${snap.rows} screen is ${width}x${height} pixels, too large to render`, options.source);
  }
  const theme = profile.theme;
  const cursorVisible = options.cursor === 'show' ? true : options.cursor === 'hide' ? false : snap.cursor.visible;
  const cursorShape = snap.cursorStyle ?? 'block';
  const baseline = Math.round(((cell.height - content) / 2 + metrics.ascent) * 100) / 100;

  const bgs: string[] = [];
  const texts: string[] = [];
  const shapes = new Map<string, string[]>();
  const decorations = new Decorations();
  const clusters: { text: string; bold: boolean; italic: boolean }[] = [];

  for (let row = 0; row < snap.rows; row++) {
    const cells = snap.cells[row] ?? [];
    const top = padding.y + row * cell.height;
    let bgRun: { colour: string; from: number; to: number } | null = null;
    const flushBg = () => {
      if (bgRun) bgs.push(`<rect x="${padding.x + bgRun.from * cell.width}" y="${top}" width="${(bgRun.to - bgRun.from) * cell.width}" height="${cell.height}" fill="${bgRun.colour}"/>`);
      bgRun = null;
    };
    let run: TextRun | null = null;
    const flushText = () => {
      if (run) texts.push(run.toSvg(top + baseline, theme.foreground));
      run = null;
    };
    for (let col = 0; col < snap.cols; col++) {
      const c: SnapshotCell | undefined = cells[col];
      if (!c || c.width === 0) continue;
      const span = Math.max(1, c.width);
      const paint = cellPaint(c, theme);
      const cursorHere = cursorVisible && cursorShape === 'block' && snap.cursor.row === row && snap.cursor.col === col;
      if (cursorHere) {
        paint.fg = theme.cursorAccent.toLowerCase();
        paint.bg = theme.cursor.toLowerCase();
      }
      const bg: string | null = paint.bg;
      if (bg !== null && bgRun && bgRun.colour === bg && bgRun.to === col) bgRun.to = col + span;
      else {
        flushBg();
        if (bg !== null) bgRun = { colour: bg, from: col, to: col + span };
      }
      const x = padding.x + col * cell.width;
      const ul = underlineStyle(c);
      decorations.cell(row, col, span, {
        underline: ul === 'none' ? null : { style: ul, colour: underlineColour(c, theme, paint.fg) },
        strike: c.strikethrough ? paint.fg : null,
        overline: c.overline ? paint.fg : null,
        dim: paint.dim,
      });
      const text = xmlSafe(c.char);
      if (c.invisible || text === '' || text === ' ') continue;
      const shape = shapeOf(text, x, top, cell.width * span, cell.height);
      if (shape) {
        const key = `${paint.fg}|${shape.stroke ? 's' : 'f'}|${fmt(shape.opacity * (paint.dim ? 0.5 : 1))}`;
        let list = shapes.get(key);
        if (!list) shapes.set(key, (list = []));
        list.push(shape.d);
        continue;
      }
      const key = `${paint.fg}|${paint.dim ? 1 : 0}|${c.bold ? 1 : 0}|${c.italic ? 1 : 0}`;
      if (!run || run.key !== key) {
        flushText();
        run = new TextRun(key, paint.fg, paint.dim, c.bold, c.italic);
      }
      run.add(x + (cell.width * span) / 2, text);
      clusters.push({ text, bold: c.bold, italic: c.italic });
    }
    flushBg();
    flushText();
  }

  const cursorMarks: string[] = [];
  if (cursorVisible && cursorShape !== 'block') {
    const x = padding.x + snap.cursor.col * cell.width;
    const y = padding.y + snap.cursor.row * cell.height;
    const t = Math.max(1, Math.round(cell.width / 8));
    cursorMarks.push(cursorShape === 'bar' ? `<rect x="${x}" y="${y}" width="${t}" height="${cell.height}" fill="${theme.cursor}"/>` : `<rect x="${x}" y="${y + cell.height - t}" width="${cell.width}" height="${t}" fill="${theme.cursor}"/>`);
  }

  const { css, families, fonts } = await embeddedFonts(clusters);
  const shapePaths = [...shapes].map(([key, ds]) => {
    const [fill, kind, opacity] = key.split('|');
    const op = opacity === '1' ? '' : ` ${kind === 's' ? 'stroke' : 'fill'}-opacity="${opacity}"`;
    return kind === 's' ? `<path d="${ds.join('')}" fill="none" stroke="${fill}"${op}/>` : `<path d="${ds.join('')}" fill="${fill}"${op}/>`;
  });
  const meta = JSON.stringify({ renderer: SVG_RENDERER, rows: snap.rows, cols: snap.cols, cell, padding, profile: profile.name });
  const svg = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<metadata id="tapedeck">${escapeXml(meta)}</metadata>`,
    `<style>${css}text{font-family:${[...families, 'monospace'].join(',')};font-size:${profile.fontSize}px;text-anchor:middle;font-kerning:none}.b{font-weight:bold}.i{font-style:italic}</style>`,
    `<rect width="100%" height="100%" fill="${theme.background}"/>`,
    ...bgs,
    ...shapePaths,
    // The default text colour as an inherited attribute: a CSS fill would win over each run's own.
    `<g fill="${theme.foreground}">`,
    ...texts,
    '</g>',
    ...decorations.toSvg(padding, cell, baseline),
    ...cursorMarks,
    '</svg>',
    '',
  ].join('\n');
  return { svg, width, height, cell, padding, cursorVisible, profileName: profile.name, fonts };
}

async function embeddedFonts(clusters: { text: string; bold: boolean; italic: boolean }[]) {
  const assigned = await assignGlyphs(clusters);
  // Every face in fallback order, the four mono faces first (one family told apart by weight and style).
  const order: FontSource[] = [];
  for (const [b, i] of [[false, false], [true, false], [false, true], [true, true]] as const) {
    for (const s of fallbackChain(b, i)) if (!order.includes(s)) order.push(s);
  }
  let css = '';
  const families: string[] = [];
  const fonts: RenderedSvg['fonts'] = [];
  for (const source of order) {
    const chars = assigned.get(source);
    if (!chars || chars.size === 0) continue;
    const woff2 = await subsetFont(source, chars);
    css += `@font-face{font-family:${source.family};font-weight:${source.weight};font-style:${source.style};src:url(data:font/woff2;base64,${woff2.toString('base64')}) format('woff2')}`;
    if (!families.includes(source.family)) families.push(source.family);
    fonts.push({ family: source.family, file: source.file, chars: [...chars].sort().join('') });
  }
  return { css, families, fonts };
}

export function escapeXml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));
}

/** A cell's text as XML allows it: controls, lone surrogates and non-characters become U+FFFD; at most 32 code units. */
export function xmlSafe(text: string): string {
  const clipped = text.length > 32 ? [...text.slice(0, 32)].slice(0, -1).join('') : text;
  // eslint-disable-next-line no-control-regex
  return clipped.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd').replace(/[\t\n\r]/g, ' ');
}
