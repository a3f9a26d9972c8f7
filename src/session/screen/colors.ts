/**
 * Colour resolution for snapshot cells. xterm.js stores a cell colour as a
 * mode (default / 256-colour palette / 24-bit RGB) plus a number; snapshots
 * report both the semantic slot (what the program asked for) and the RGB the
 * default xterm.js theme resolves it to (what a screenshot would show).
 */

/** xterm.js's default theme for the 16 ANSI colours (also the dark render profile's palette). */
export const ANSI_16 = [
  '#000000', '#cd3131', '#0dbc79', '#e5e510', '#2472c8', '#bc3fbc', '#11a8cd', '#e5e5e5',
  '#666666', '#f14c4c', '#23d18b', '#f5f543', '#3b8eea', '#d670d6', '#29b8db', '#e5e5e5',
];

const ANSI_NAMES = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];

function hex(n: number): string {
  return n.toString(16).padStart(2, '0');
}

/** The RGB of palette slot 0–255 under the default theme. */
export function paletteRgb(index: number): string {
  if (index < 16) return ANSI_16[index];
  if (index < 232) {
    const levels = [0, 95, 135, 175, 215, 255];
    const i = index - 16;
    return `#${hex(levels[Math.floor(i / 36)])}${hex(levels[Math.floor(i / 6) % 6])}${hex(levels[i % 6])}`;
  }
  const grey = 8 + (index - 232) * 10;
  return `#${hex(grey)}${hex(grey)}${hex(grey)}`;
}

/** "red", "brightBlue" for the 16 ANSI slots, "palette:196" above. */
export function paletteSlot(index: number): string {
  if (index < 8) return ANSI_NAMES[index];
  if (index < 16) return `bright${ANSI_NAMES[index - 8][0].toUpperCase()}${ANSI_NAMES[index - 8].slice(1)}`;
  return `palette:${index}`;
}

export interface CellColor {
  kind: 'default' | 'palette' | 'rgb';
  /** Palette index 0–255 when kind is "palette". */
  index?: number;
  /** Resolved "#rrggbb"; absent for "default", which depends on the theme. */
  rgb?: string;
  /** The slot the program chose: "default", "red", "brightRed", "palette:196" or "rgb". */
  slot: string;
}

export function resolveColor(kind: 'default' | 'palette' | 'rgb', value: number): CellColor {
  if (kind === 'palette') return { kind, index: value, rgb: paletteRgb(value), slot: paletteSlot(value) };
  if (kind === 'rgb') return { kind, rgb: `#${hex((value >> 16) & 0xff)}${hex((value >> 8) & 0xff)}${hex(value & 0xff)}`, slot: 'rgb' };
  return { kind: 'default', slot: 'default' };
}
