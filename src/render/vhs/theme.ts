import { FONT_FAMILY, type RenderProfile } from '../profiles.js';

/**
 * VHS's look as a render profile: its default theme (style.go, from
 * meowgorithm's dotfiles) or a tape's `Set Theme {...}` JSON (xterm.js ITheme
 * keys, missing ones from the default, as VHS merges them), at the tape's
 * FontSize and LineHeight. The raster renderer draws the grid with tapedeck's
 * pinned fonts (DejaVu Sans Mono first), not VHS's FontFamily.
 */
export const VHS_DEFAULT_THEME: Readonly<Record<string, string>> = {
  background: '#171717', foreground: '#dddddd', cursor: '#dddddd', cursorAccent: '#171717',
  black: '#282a2e', red: '#D74E6F', green: '#31BB71', yellow: '#D3E561', blue: '#8056FF', magenta: '#ED61D7', cyan: '#04D7D7', white: '#bfbfbf',
  brightBlack: '#4d4d4d', brightRed: '#FE5F86', brightGreen: '#00D787', brightYellow: '#EBFF71', brightBlue: '#9B79FF', brightMagenta: '#FF7AEA', brightCyan: '#00FEFE', brightWhite: '#e6e6e6',
};

const ANSI_KEYS = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];

/** "#rgb" or "#rrggbb" (any case) as "#rrggbb"; anything else is undefined. */
export function normaliseHex(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(value.trim());
  if (!m) return undefined;
  const h = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1];
  return `#${h.toLowerCase()}`;
}

export interface VhsLook {
  /** A theme name (only VHS's default is known: others are drawn in it) or a JSON theme. */
  theme: string | Record<string, unknown>;
  fontSize: number;
  lineHeight: number;
}

/** The merged theme's colours, each "#rrggbb". */
export function vhsThemeColours(theme: VhsLook['theme']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(VHS_DEFAULT_THEME)) out[k] = normaliseHex(v)!;
  if (typeof theme === 'object') {
    for (const k of Object.keys(VHS_DEFAULT_THEME)) {
      const v = normaliseHex(theme[k]);
      if (v) out[k] = v;
    }
    // xterm.js names magenta "magenta"; VHS's older themes say "purple".
    const purple = normaliseHex(theme.purple);
    if (purple && theme.magenta === undefined) out.magenta = purple;
    const brightPurple = normaliseHex(theme.brightPurple);
    if (brightPurple && theme.brightMagenta === undefined) out.brightMagenta = brightPurple;
    if (theme.cursor === undefined && theme.foreground !== undefined) out.cursor = out.foreground;
    if (theme.cursorAccent === undefined && theme.background !== undefined) out.cursorAccent = out.background;
  }
  return out;
}

/** The render profile of a tape's look (no padding: the window adds VHS's). */
export function vhsProfile(look: VhsLook): RenderProfile {
  const c = vhsThemeColours(look.theme);
  const ansi = [...ANSI_KEYS.map((k) => c[k]), ...ANSI_KEYS.map((k) => c[`bright${k[0].toUpperCase()}${k.slice(1)}`])];
  return {
    name: typeof look.theme === 'string' && look.theme ? `vhs:${look.theme}` : 'vhs',
    theme: { background: c.background, foreground: c.foreground, cursor: c.cursor, cursorAccent: c.cursorAccent, ansi },
    fontFamily: FONT_FAMILY,
    fontSize: look.fontSize,
    lineHeight: look.lineHeight,
    padding: 0,
  };
}
