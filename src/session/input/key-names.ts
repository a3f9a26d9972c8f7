/**
 * Key names as a type, so `press('Dwon')` is a compile error: named keys
 * (any case the parser accepts is spelled here as documented or lower-case),
 * single printable ASCII characters, and chords of up to two modifiers.
 * Anything else (other characters, three modifiers) is still accepted at run
 * time through a `string` cast; `type()` sends free text.
 */
type Digit = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
type FunctionKey = 'F1' | 'F2' | 'F3' | 'F4' | 'F5' | 'F6' | 'F7' | 'F8' | 'F9' | 'F10' | 'F11' | 'F12';
type KeypadKey = `KP${Digit}` | 'KPEnter' | 'KPPlus' | 'KPMinus' | 'KPMultiply' | 'KPDivide' | 'KPDecimal';
export type NamedKey =
  | 'Enter' | 'Return' | 'Tab' | 'Escape' | 'Esc' | 'Backspace' | 'Delete' | 'Del' | 'Insert' | 'Ins' | 'Space'
  | 'Up' | 'Down' | 'Left' | 'Right' | 'ArrowUp' | 'ArrowDown' | 'ArrowLeft' | 'ArrowRight'
  | 'Home' | 'End' | 'PageUp' | 'PageDown' | 'PgUp' | 'PgDn'
  | FunctionKey | KeypadKey;
type Lower = 'a' | 'b' | 'c' | 'd' | 'e' | 'f' | 'g' | 'h' | 'i' | 'j' | 'k' | 'l' | 'm' | 'n' | 'o' | 'p' | 'q' | 'r' | 's' | 't' | 'u' | 'v' | 'w' | 'x' | 'y' | 'z';
type Punctuation = '!' | '"' | '#' | '$' | '%' | '&' | "'" | '(' | ')' | '*' | '+' | ',' | '-' | '.' | '/' | ':' | ';' | '<' | '=' | '>' | '?' | '@' | '[' | '\\' | ']' | '^' | '_' | '`' | '{' | '|' | '}' | '~' | ' ';
export type PrintableKey = Lower | Uppercase<Lower> | Digit | Punctuation;
export type BaseKey = NamedKey | Lowercase<NamedKey> | PrintableKey;
export type Modifier = 'ctrl' | 'alt' | 'shift' | 'meta' | 'Ctrl' | 'Alt' | 'Shift' | 'Meta';
/** One key or chord for press(): 'Enter', 'q', 'ctrl+c', 'ctrl+shift+Up'. */
export type KeyName = BaseKey | `${Modifier}+${BaseKey}` | `${Modifier}+${Modifier}+${BaseKey}`;
