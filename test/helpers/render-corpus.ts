/**
 * Screens for the renderer tests: real programs in real PTYs (vim with
 * syntax colours, htop, less over a file of CJK, emoji, combining marks and
 * ZWJ sequences) and screens written straight to a headless terminal (colour
 * charts, every SGR attribute, box drawing, blocks, braille, cursor shapes).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Screen, type ScreenSnapshot } from '../../src/session/screen/screen.js';
import { spawnTerminal } from '../../src/session/index.js';
import { decodePng } from '../../src/render/pixel/png.js';
import { ROOT } from './cli.js';

export interface CorpusScreen {
  name: string;
  snap: ScreenSnapshot;
}

export async function written(name: string, rows: number, cols: number, bytes: string): Promise<CorpusScreen> {
  const screen = new Screen({ rows, cols, scrollback: 0 });
  await screen.write(bytes);
  const snap = screen.snapshot({ includeCells: true });
  screen.dispose();
  return { name, snap };
}

const E = '\x1b';

export function syntheticScreens(): Promise<CorpusScreen[]> {
  const chart256 = Array.from({ length: 16 }, (_, r) => Array.from({ length: 16 }, (_, c) => `${E}[48;5;${r * 16 + c}m ${E}[38;5;${255 - r * 16 - c}m#`).join('') + `${E}[0m\r\n`).join('');
  const chart24 = Array.from({ length: 12 }, (_, r) => Array.from({ length: 40 }, (_, c) => `${E}[48;2;${(c * 6) & 255};${(r * 21) & 255};${(255 - c * 6) & 255}m${E}[38;2;${255 - r * 20};${c * 6};90m▄`).join('') + `${E}[0m\r\n`).join('');
  const sgr = [
    `plain ${E}[1mbold${E}[0m ${E}[2mdim${E}[0m ${E}[3mitalic${E}[0m ${E}[1;3mbolditalic${E}[0m ${E}[7minverse${E}[0m ${E}[8minvisible${E}[0m ${E}[9mstrike${E}[0m ${E}[53mover${E}[0m\r\n`,
    `${E}[4msingle${E}[0m ${E}[4:2mdouble${E}[0m ${E}[4:3mcurly${E}[0m ${E}[4:4mdotted${E}[0m ${E}[4:5mdashed${E}[0m ${E}[4;58;5;196mred-ul${E}[0m ${E}[4:3;58;2;0;200;255mcyan-curly${E}[0m\r\n`,
    ...[30, 90].map((base) => `${Array.from({ length: 8 }, (_, i) => `${E}[${base + i}mfg${i}`).join(' ')}${E}[0m \r\n`),
    `${Array.from({ length: 8 }, (_, i) => `${E}[1;${30 + i}mbold${i}`).join(' ')}${E}[0m\r\n`,
    `${Array.from({ length: 8 }, (_, i) => `${E}[2;${30 + i}mdim${i}`).join(' ')}${E}[0m\r\n`,
    `${Array.from({ length: 8 }, (_, i) => `${E}[${40 + i};${i === 7 ? 30 : 37}mbg${i}`).join(' ')}${E}[0m\r\n`,
    `${E}[7;31minv-red${E}[0m ${E}[7;38;2;10;200;90;48;5;17minv-rgb${E}[0m ${E}[1;2mbold-dim${E}[0m ${E}[3;4;9mall-lines${E}[0m ${E}[38;5;208;48;5;236m 256 on 256 ${E}[0m\r\n`,
  ].join('');
  const boxes = [
    '┌──┬──┐ ┏━━┳━━┓ ╔══╦══╗ ╭──╮ ┌┄┄┐ ╷ ╻\r\n',
    '│ab│cd│ ┃ab┃cd┃ ║ab║cd║ │  │ ┆  ┆ ╵ ╹\r\n',
    '├──┼──┤ ┣━━╋━━┫ ╠══╬══╣ ╰──╯ └┈┈┘ ╴╶╸╺\r\n',
    '└──┴──┘ ┗━━┻━━┛ ╚══╩══╝ ╱╲╳ ┍┑┕┙┝┥ ╞╡╟╢\r\n',
    '▀▁▂▃▄▅▆▇█▉▊▋▌▍▎▏▐ ░▒▓ ▔▕▖▗▘▙▚▛▜▝▞▟\r\n',
    '⠁⠂⠄⡀⠈⠐⠠⢀ ⣿⣶⣤⣀⠿⠛⠉ ⢸⡇⣸⣇ ⠀⠀\r\n',
    `${E}[32m████${E}[0m${E}[42;30m ok ${E}[0m ${E}[44m    ${E}[0m ▐▌ ▄▀\r\n`,
  ].join('');
  return Promise.all([
    written('256-colour chart', 17, 34, chart256),
    written('24-bit chart', 13, 42, chart24),
    written('every SGR attribute', 10, 90, sgr),
    written('box drawing, blocks, braille', 8, 48, boxes),
    written('cursor block', 3, 20, `a block cursor${E}[2 q${E}[2;3H`),
    written('cursor underline', 3, 20, `an underline cursor${E}[4 q${E}[2;3H`),
    written('cursor bar', 3, 20, `a bar cursor${E}[6 q${E}[2;3H`),
    written('cursor hidden', 3, 20, `no cursor${E}[?25l${E}[2;3H`),
    written('cursor over a wide character', 3, 20, `中文字${E}[1;3H`),
  ]);
}

export const INTERNATIONAL = [
  'CJK: 中文字符 日本語のかな 한국어',
  'emoji: 😀 🎉 👍 ✅ 🚀 🐍 ❤',
  'combining: e\u0301 a\u0308 n\u0303 o\u0302\u0323',
  'ZWJ: 👨‍💻 👩‍🔬 🏳️‍🌈',
  'mixed: abc中文def😀ghi',
  'Greek Ελληνικά Cyrillic Кириллица',
].join('\n');

/** Real programs: vim (syntax on), htop (its help screen: stable) and less over INTERNATIONAL. */
export async function programScreens(home: string): Promise<CorpusScreen[]> {
  const out: CorpusScreen[] = [];
  const env = { HOME: home, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TERM: 'xterm-256color' };
  {
    const term = spawnTerminal('vim', ['-u', 'NONE', '-N', '-n', '-i', 'NONE', '-c', 'syntax on', 'sample.c'], { rows: 16, cols: 60, cwd: join(ROOT, 'test/fixtures/screens'), env });
    await term.waitForText('"sample.c"');
    await term.waitForStable(300);
    out.push({ name: 'vim with syntax', snap: await term.snapshot({ includeCells: true }) });
    await term.dispose();
  }
  {
    const term = spawnTerminal('htop', [], { rows: 24, cols: 80, cwd: home, env });
    await term.waitForText('PID');
    term.press('h');
    await term.waitForText('incremental PID search');
    await term.waitForStable(300);
    out.push({ name: 'htop help', snap: await term.snapshot({ includeCells: true }) });
    await term.dispose();
  }
  {
    const file = join(home, 'international.txt');
    writeFileSync(file, `${INTERNATIONAL}\n`);
    const term = spawnTerminal('less', ['-R', file], { rows: 24, cols: 80, cwd: home, env: { ...env, LESSCHARSET: 'utf-8', LESS: '' } });
    await term.waitForText('Cyrillic');
    await term.waitForStable(200);
    out.push({ name: 'less over CJK, emoji, combining marks, ZWJ', snap: await term.snapshot({ includeCells: true }) });
    await term.dispose();
  }
  {
    // Midnight Commander: its blue panels, box drawing and the function-key bar.
    const term = spawnTerminal('mc', ['--nosubshell', '--nomouse', join(ROOT, 'test/fixtures/screens'), home], { rows: 24, cols: 80, cwd: home, env: { ...env, MC_SKIN: 'default' } });
    await term.waitForText('sample.c');
    await term.waitForText(/1\s*Help/);
    await term.waitForStable(300);
    out.push({ name: 'mc panels', snap: await term.snapshot({ includeCells: true }) });
    term.press('F10');
    await term.dispose();
  }
  {
    // dialog: a checklist with a shadow, colours and emoji in its items.
    const term = spawnTerminal('dialog', ['--title', 'Pick 😀', '--checklist', 'Toppings for 漢字 pizza:', '14', '50', '4', 'a', 'Cheese 🧀', 'on', 'b', 'Olives', 'off', 'c', 'Basil 🌿', 'off'], { rows: 24, cols: 80, cwd: home, env });
    await term.waitForText('<Cancel>');
    await term.waitForStable(300);
    out.push({ name: 'dialog checklist', snap: await term.snapshot({ includeCells: true }) });
    await term.dispose();
  }
  return out;
}

export interface CellAgreement {
  cells: number;
  inkAgree: number;
  inkedInBoth: number;
  colourAgree: number;
  /** The first few cells that disagree, "row,col: why". */
  disagreements: string[];
}

/**
 * Compares two renderings cell by cell, not pixel by pixel: per cell, its
 * background is its most common colour, ink is a pixel far from it (at least
 * two of them, the outermost pixel column on either side not counted: the
 * browser's glyphs of DejaVu's blocks reach a pixel into the next cell), and
 * the ink's colour is that of the pixel farthest from the background. Two inks
 * agree within 90 (sum of the RGB differences) or a fifth of their distance
 * from the background: how much anti-aliasing of a thin stroke moves it; a
 * box-drawing line's inks also agree as the same colour at another coverage.
 */
export function compareCells(a: { width: number; data: Uint8Array }, b: { width: number; data: Uint8Array }, snap: ScreenSnapshot, cell: { width: number; height: number }, pad: number): CellAgreement {
  const result: CellAgreement = { cells: 0, inkAgree: 0, inkedInBoth: 0, colourAgree: 0, disagreements: [] };
  for (let r = 0; r < snap.rows; r++) {
    for (let c = 0; c < snap.cols; c++) {
      const x0 = pad + c * cell.width;
      const y0 = pad + r * cell.height;
      const ia = inkOf(a, x0, y0, cell);
      const ib = inkOf(b, x0, y0, cell);
      result.cells++;
      const why = (s: string) => result.disagreements.length < 12 && result.disagreements.push(`${r},${c} ${JSON.stringify(snap.cells![r][c].char)}: ${s}`);
      if ((ia === null) === (ib === null)) result.inkAgree++;
      else why(`ink in ${ia ? 'first' : 'second'} only`);
      if (ia && ib) {
        result.inkedInBoth++;
        const char = snap.cells![r][c].char;
        if (distance(ia.ink, ib.ink) <= Math.max(90, 0.2 * Math.max(distance(ia.ink, ia.bg), distance(ib.ink, ib.bg)))) result.colourAgree++;
        else if (isBoxLine(char) && sameInkOverBackground(ia, ib)) result.colourAgree++;
        else why(`ink ${hex(ia.ink)} vs ${hex(ib.ink)}`);
      }
    }
  }
  return result;
}

/** Box-drawing lines (U+2500-U+257F): tapedeck draws them as whole pixels, the browser as a font's thinner strokes. */
function isBoxLine(char: string): boolean {
  const cp = char.codePointAt(0) ?? 0;
  return cp >= 0x2500 && cp <= 0x257f;
}

/**
 * The same ink at another coverage: anti-aliasing mixes a stroke's colour with
 * the background linearly, so a stroke thinner than a pixel keeps the direction
 * from the background and loses only length. Same direction (cosine >= 0.98)
 * and at least 40% of the stronger one's length: the same colour, drawn thinner.
 */
function sameInkOverBackground(a: { ink: number[]; bg: number[] }, b: { ink: number[]; bg: number[] }): boolean {
  const va = a.ink.map((v, i) => v - a.bg[i]);
  const vb = b.ink.map((v, i) => v - b.bg[i]);
  const dot = va.reduce((sum, v, i) => sum + v * vb[i], 0);
  const la = Math.hypot(...va);
  const lb = Math.hypot(...vb);
  return la > 0 && lb > 0 && dot / (la * lb) >= 0.98 && Math.min(la, lb) >= 0.4 * Math.max(la, lb);
}

function inkOf(img: { width: number; data: Uint8Array }, x0: number, y0: number, cell: { width: number; height: number }): { ink: number[]; bg: number[] } | null {
  const counts = new Map<number, number>();
  const px = (x: number, y: number) => {
    const i = ((y0 + y) * img.width + x0 + x) * 4;
    return [img.data[i], img.data[i + 1], img.data[i + 2]];
  };
  for (let y = 0; y < cell.height; y++) {
    for (let x = 0; x < cell.width; x++) {
      const [r, g, b] = px(x, y);
      const k = (r << 16) | (g << 8) | b;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
  }
  const bgKey = [...counts].sort((p, q) => q[1] - p[1])[0][0];
  const bg = [bgKey >> 16, (bgKey >> 8) & 255, bgKey & 255];
  let far: number[] | null = null;
  let farD = 0;
  let n = 0;
  for (let y = 0; y < cell.height; y++) {
    for (let x = 1; x < cell.width - 1; x++) {
      const p = px(x, y);
      const d = distance(p, bg);
      if (d > 96) n++;
      if (d > farD) [far, farD] = [p, d];
    }
  }
  return n >= 2 && far ? { ink: far, bg } : null;
}

function distance(p: number[], q: number[]): number {
  return Math.abs(p[0] - q[0]) + Math.abs(p[1] - q[1]) + Math.abs(p[2] - q[2]);
}

function hex(p: number[]): string {
  return `#${p.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

export function rgbaOfPng(png: Buffer): { width: number; height: number; data: Uint8Array } {
  return decodePng(png);
}
