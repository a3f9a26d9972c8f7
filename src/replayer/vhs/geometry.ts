/**
 * The terminal size VHS gets for a tape. VHS sizes the browser viewport to
 * Width × Height less twice the Padding, twice the Margin (when MarginFill is
 * set) and the WindowBarSize (when WindowBar is set), and xterm.js's fit addon
 * fills it with cells (ttyd's terminal element has 5 px of padding on each
 * side). A cell of the default font (JetBrains Mono: advance 0.6 em, line
 * 1.32 em) is floor(0.6 × FontSize) + LetterSpacing wide and
 * floor(ceil(1.32 × FontSize) × LineHeight) tall. VHS's defaults: 1200 × 600,
 * FontSize 22, Padding 60, LetterSpacing 1, LineHeight 1.
 */
export interface VhsStyle {
  width: number;
  height: number;
  fontSize: number;
  letterSpacing: number;
  lineHeight: number;
  padding: number;
  margin: number;
  marginFill: string;
  windowBar: string;
  windowBarSize: number;
}

const TTYD_PADDING = 10;
const ADVANCE_EM = 0.6;
const LINE_EM = 1.32;

export function terminalSize(s: VhsStyle): { rows: number; cols: number; cellWidth: number; cellHeight: number } {
  const margin = s.marginFill ? s.margin : 0;
  const bar = s.windowBar ? s.windowBarSize : 0;
  const width = s.width - 2 * s.padding - 2 * margin - TTYD_PADDING;
  const height = s.height - 2 * s.padding - 2 * margin - bar - TTYD_PADDING;
  const cellWidth = Math.max(1, Math.floor(s.fontSize * ADVANCE_EM) + Math.round(s.letterSpacing));
  const cellHeight = Math.max(1, Math.floor(Math.ceil(s.fontSize * LINE_EM) * s.lineHeight));
  return { cols: Math.max(2, Math.floor(width / cellWidth)), rows: Math.max(1, Math.floor(height / cellHeight)), cellWidth, cellHeight };
}

/** VHS's own check: the image must fit the padding, margins and bar. */
export function minimumSize(s: VhsStyle): { width: number; height: number } {
  const width = 2 * s.padding + 2 * s.margin;
  return { width, height: width + (s.windowBar ? s.windowBarSize : 0) };
}
