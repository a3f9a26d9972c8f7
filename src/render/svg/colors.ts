import { paletteRgb } from '../../session/screen/colors.js';
import type { CellColor, SnapshotCell } from '../../session/screen/screen.js';
import type { RenderTheme } from '../profiles.js';

/**
 * A cell's colours under a profile, as xterm.js draws them: the 16 ANSI
 * colours from the theme, the rest of the 256 from xterm's palette, bold text
 * in the first 8 colours drawn bright, inverse swapping text and background.
 */
export interface CellPaint {
  /** Text colour, "#rrggbb". */
  fg: string;
  /** Background colour, or null for the theme's (not drawn per cell). */
  bg: string | null;
  /** Dim text is drawn at half opacity. */
  dim: boolean;
}

export function colourOf(c: CellColor, theme: RenderTheme, bold: boolean): string | null {
  if (c.kind === 'palette' && c.index !== undefined) {
    const i = bold && c.index < 8 ? c.index + 8 : c.index;
    return i < 16 ? (theme.ansi[i] ?? paletteRgb(i)) : paletteRgb(i);
  }
  if (c.kind === 'rgb' && c.rgb) return c.rgb;
  return null;
}

export function cellPaint(cell: SnapshotCell, theme: RenderTheme): CellPaint {
  let fg = colourOf(cell.fg, theme, cell.bold) ?? theme.foreground;
  let bg = colourOf(cell.bg, theme, false);
  if (cell.inverse) [fg, bg] = [bg ?? theme.background, fg];
  return { fg: fg.toLowerCase(), bg: bg === null ? null : bg.toLowerCase(), dim: cell.dim };
}

/** The underline's own colour (SGR 58) when the snapshot carries one. */
export function underlineColour(cell: SnapshotCell, theme: RenderTheme, fallback: string): string {
  const own = (cell as { underlineColor?: CellColor }).underlineColor;
  return (own && colourOf(own, theme, false)) ?? fallback;
}

/** single, double, curly, dotted, dashed, or none. */
export function underlineStyle(cell: SnapshotCell): string {
  const style = (cell as { underlineStyle?: string }).underlineStyle;
  if (style) return style === 'none' ? 'none' : style;
  return cell.underline ? 'single' : 'none';
}
