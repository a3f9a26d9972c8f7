import type { VhsCommand, VhsLocation, VhsSettingName } from './ast.js';
import type { TokenCursor as Parser } from './cursor.js';
import { compileGoRegex } from './values.js';

/** The shells VHS knows (its shell.go); anything else is an error before anything runs. */
export const VHS_SHELLS = ['bash', 'zsh', 'fish', 'powershell', 'pwsh', 'cmd', 'nu', 'osh', 'xonsh'] as const;

const INTEGER: VhsSettingName[] = ['FontSize', 'Width', 'Height', 'Padding', 'Margin', 'WindowBarSize', 'BorderRadius', 'Framerate'];
const FLOAT: VhsSettingName[] = ['LetterSpacing', 'LineHeight', 'PlaybackSpeed'];
const SETTINGS: VhsSettingName[] = [
  'Shell', 'FontFamily', 'FontSize', 'LetterSpacing', 'LineHeight', 'Framerate', 'TypingSpeed', 'Theme', 'PlaybackSpeed',
  'Height', 'Width', 'Padding', 'LoopOffset', 'MarginFill', 'Margin', 'WindowBar', 'WindowBarSize', 'BorderRadius',
  'CursorBlink', 'WaitTimeout', 'WaitPattern',
];
const BARS = ['', 'Colorful', 'ColorfulRight', 'Rings', 'RingsRight'];
/** Upper bounds that keep a hostile tape's screen and frame counts bounded. */
const MAX: Partial<Record<VhsSettingName, number>> = { FontSize: 500, Width: 20_000, Height: 20_000, Padding: 5_000, Margin: 5_000, WindowBarSize: 5_000, BorderRadius: 5_000, Framerate: 120 };

type SetCommand = Extract<VhsCommand, { kind: 'Set' }>;

/** `Set NAME VALUE` (parser.go's parseSet), every value checked as VHS's Execute would check it. */
export function setCommand(p: Parser, at: VhsLocation): SetCommand | undefined {
  const nameTok = p.peek;
  const setting = nameTok.literal as VhsSettingName;
  if (nameTok.type !== 'KEYWORD' || !SETTINGS.includes(setting)) {
    p.error(nameTok, `unknown setting ${p.describe(nameTok)}: expected one of ${SETTINGS.join(', ')}`);
    p.skipLine(at.line);
    return undefined;
  }
  p.advance();
  const done = (raw: string, value: SetCommand['value']): SetCommand => ({ kind: 'Set', setting, raw, value, at });
  if (setting === 'TypingSpeed' || setting === 'WaitTimeout') {
    const ms = p.time(p.cur, setting === 'TypingSpeed' ? ['MILLISECONDS', 'SECONDS'] : undefined);
    return ms === undefined ? undefined : done(`${ms}ms`, ms);
  }
  const v = p.peek;
  if (v.type === 'EOF' || v.line !== nameTok.line) {
    p.error(v.type === 'EOF' ? v : nameTok, `Set ${setting} expects a value`);
    return undefined;
  }
  p.advance();
  const bad = (expected: string) => {
    p.error(v, `Set ${setting} expects ${expected}, got ${p.describe(v)}`);
    return undefined;
  };
  if (INTEGER.includes(setting)) {
    if (v.type !== 'NUMBER' || !/^\d+$/.test(v.literal)) return bad('a whole number');
    const n = Number(v.literal);
    const max = MAX[setting]!;
    if (n > max || ((setting === 'FontSize' || setting === 'Framerate' || setting === 'Width' || setting === 'Height') && n < 1)) return bad(`a whole number from 1 to ${max}`);
    return done(v.literal, n);
  }
  if (FLOAT.includes(setting)) {
    if (v.type !== 'NUMBER' || !/^(\d+\.?\d*|\.\d+)$/.test(v.literal)) return bad('a number');
    if (setting !== 'LetterSpacing' && Number(v.literal) <= 0) return bad('a positive number');
    return done(v.literal, Number(v.literal));
  }
  switch (setting) {
    case 'Shell':
      if (v.type !== 'STRING' || !(VHS_SHELLS as readonly string[]).includes(v.literal)) return bad(`a shell VHS knows (${VHS_SHELLS.join(', ')})`);
      return done(v.literal, v.literal);
    case 'FontFamily':
      if (v.type !== 'STRING') return bad('a font name');
      return done(v.literal, v.literal);
    case 'Theme':
      if (v.type === 'JSON') {
        try {
          const theme = JSON.parse(v.literal) as unknown;
          if (typeof theme !== 'object' || theme === null || Array.isArray(theme)) return bad('a JSON object');
          return done(v.literal, theme as Record<string, unknown>);
        } catch (err) {
          return bad(`a theme name or a JSON object (${(err as Error).message})`);
        }
      }
      if (v.type !== 'STRING') return bad('a theme name or a JSON object');
      return done(v.literal, v.literal);
    case 'LoopOffset': {
      if (v.type !== 'NUMBER' || !/^(\d+\.?\d*|\.\d+)$/.test(v.literal)) return bad('a percentage (20 or 20%)');
      if (p.peek.type === 'PERCENT') p.advance();
      return done(`${v.literal}%`, Number(v.literal));
    }
    case 'MarginFill': {
      // `#6B50FF` unquoted lexes as a comment, as in VHS: its text is the value.
      const color = v.type === 'COMMENT' ? `#${v.literal}` : v.literal;
      if (v.type !== 'STRING' && v.type !== 'COMMENT') return bad('a colour ("#RRGGBB") or an image path');
      if (color.startsWith('#') && !/^#[0-9A-Fa-f]{6}$/.test(color)) return bad('a colour as #RRGGBB');
      return done(color, color);
    }
    case 'WindowBar':
      if (!BARS.includes(v.literal)) return bad(`a bar style (${BARS.slice(1).join(', ')})`);
      return done(v.literal, v.literal);
    case 'CursorBlink':
      if (v.type !== 'BOOLEAN') return bad('true or false');
      return done(v.literal, v.literal === 'true');
    case 'WaitPattern':
      if (v.type === 'REGEX' ? !p.checkRegex(v) : false) return undefined;
      try {
        compileGoRegex(v.literal);
      } catch (err) {
        return bad(`a regular expression (${(err as Error).message})`);
      }
      return done(v.literal, v.literal);
    default:
      return bad('a value');
  }
}
