import { readFileSync } from 'node:fs';
import type { Terminal as XTerm } from '@xterm/headless';
import { packagePath } from '../../core/package-root.js';

/**
 * Queries xterm.js leaves unanswered, answered as xterm does, so a program
 * that waits for the answer does not wait for its own timeout:
 * - XTVERSION (`CSI > 0 q`): `DCS > | name(version) ST`;
 * - OSC 10 / 11 with `?` (foreground / background colour): `OSC 10 ; rgb:rrrr/gggg/bbbb ST`,
 *   the colours of the default (dark) render profile, so what a program reads
 *   is what a screenshot shows.
 * `CSI 18 t` (text area size in characters) xterm.js answers itself once
 * allowed (windowOptions.getWinSizeChars, set where the screen is built).
 * Answers go out through xterm.js's own onData, like its DA and DSR answers.
 */
export const TERMINAL_NAME = 'tapedeck';

/** #rrggbb → xterm's rgb:rrrr/gggg/bbbb (each 8-bit channel repeated, as xterm reports 16-bit values). */
export function xtermRgb(hex: string): string {
  const ch = (i: number) => hex.slice(1 + i * 2, 3 + i * 2).repeat(2);
  return `rgb:${ch(0)}/${ch(1)}/${ch(2)}`;
}

/** The dark profile's foreground and background (render/profiles.ts keeps the same values). */
export const DEFAULT_COLORS = { foreground: '#e5e5e5', background: '#000000' } as const;

let version: string | undefined;

/** tapedeck's version (XTVERSION's answer), read once. */
function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
  return version;
}

export function answerQueries(term: XTerm, colors: { foreground: string; background: string } = DEFAULT_COLORS): void {
  const reply = (data: string) => term.input(data, false);
  term.parser.registerCsiHandler({ prefix: '>', final: 'q' }, (params) => {
    if ((params[0] ?? 0) !== 0) return false;
    reply(`\x1bP>|${TERMINAL_NAME}(${packageVersion()})\x1b\\`);
    return true;
  });
  // OSC 10 ; ? ; ? asks for 10 and then 11 (each further parameter is the next colour, as in xterm);
  // a colour the program set is what a later query reports; OSC 110 / 111 reset it.
  const current: Record<number, string> = { 10: xtermRgb(colors.foreground), 11: xtermRgb(colors.background) };
  const initial = { ...current };
  for (const first of [10, 11]) {
    term.parser.registerOscHandler(first, (data) => {
      const parts = data.split(';');
      parts.forEach((part, i) => {
        const code = first + i;
        if (!(code in current)) return;
        if (part === '?') reply(`\x1b]${code};${current[code]}\x1b\\`);
        else current[code] = parseColor(part) ?? current[code];
      });
      return parts.every((p) => p === '?'); // a set goes on to xterm.js's own handler too
    });
  }
  for (const code of [10, 11]) {
    term.parser.registerOscHandler(100 + code, () => {
      current[code] = initial[code];
      return false;
    });
  }
}

/** An X colour spec (`#rgb`, `#rrggbb`, `#rrrrggggbbbb`, `rgb:r/g/b` with 1-4 hex digits) as xterm reports it, 16 bits a channel. */
export function parseColor(spec: string): string | undefined {
  const scale = (h: string) => Math.round((parseInt(h, 16) / (16 ** h.length - 1)) * 0xffff).toString(16).padStart(4, '0');
  let channels: string[] | undefined;
  const hash = /^#((?:[0-9a-f]{3}){1,4})$/i.exec(spec);
  if (hash) {
    const n = hash[1].length / 3;
    channels = [0, 1, 2].map((i) => hash[1].slice(i * n, (i + 1) * n));
  }
  const rgb = /^rgb:([0-9a-f]{1,4})\/([0-9a-f]{1,4})\/([0-9a-f]{1,4})$/i.exec(spec);
  if (rgb) channels = rgb.slice(1, 4);
  return channels ? `rgb:${channels.map(scale).join('/')}` : undefined;
}
