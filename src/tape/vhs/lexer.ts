/**
 * The VHS tape lexer, as charmbracelet/vhs's lexer/lexer.go reads a tape:
 * bare words are strings unless they are keywords, strings end at their quote
 * or at the end of the line, `#` comments run to the end of the line, `{...}`
 * is one JSON token, `/.../` a regex with escaped slashes. Positions are
 * 1-based lines and columns (in characters).
 */
export type TokenType =
  | 'AT' | 'EQUAL' | 'PLUS' | 'PERCENT' | 'MINUS' | 'LEFT_BRACKET' | 'RIGHT_BRACKET' | 'CARET' | 'BACKSLASH'
  | 'EOF' | 'ILLEGAL' | 'COMMENT' | 'NUMBER' | 'STRING' | 'JSON' | 'REGEX' | 'BOOLEAN'
  | 'MILLISECONDS' | 'SECONDS' | 'MINUTES' | 'EM' | 'PX'
  | 'KEYWORD';

export interface Token {
  type: TokenType;
  literal: string;
  line: number;
  column: number;
  /** Strings: how it was quoted ('"', "'", '`', or '' for a bare word); unterminated: the string ran to the end of its line. */
  quote?: string;
  unterminated?: boolean;
}

/** Words the lexer reads as keywords (token/token.go's Keywords); every other bare word is a string. */
export const KEYWORDS = new Set([
  'Set', 'Sleep', 'Type', 'Enter', 'Space', 'Backspace', 'Delete', 'Insert', 'Ctrl', 'Alt', 'Shift', 'Down', 'Left',
  'Right', 'Up', 'PageUp', 'PageDown', 'ScrollUp', 'ScrollDown', 'Tab', 'Escape', 'End', 'Hide', 'Require', 'Show',
  'Output', 'Shell', 'FontFamily', 'MarginFill', 'Margin', 'WindowBar', 'WindowBarSize', 'BorderRadius', 'FontSize',
  'Framerate', 'Height', 'LetterSpacing', 'LineHeight', 'PlaybackSpeed', 'TypingSpeed', 'Padding', 'Theme', 'Width',
  'LoopOffset', 'WaitTimeout', 'WaitPattern', 'Wait', 'Source', 'CursorBlink', 'Screenshot', 'Copy', 'Paste', 'Env',
  // tapedeck also reads Home as a key command (VHS has the token but no keyword for it).
  'Home',
]);

const UNITS: Record<string, TokenType> = { ms: 'MILLISECONDS', s: 'SECONDS', m: 'MINUTES', em: 'EM', px: 'PX' };
const SINGLE: Record<string, TokenType> = {
  '@': 'AT', '=': 'EQUAL', ']': 'RIGHT_BRACKET', '[': 'LEFT_BRACKET', '-': 'MINUS', '%': 'PERCENT', '^': 'CARET',
  '\\': 'BACKSLASH', '+': 'PLUS',
};

const isDigit = (c: string) => c >= '0' && c <= '9';
const isLetter = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
const isIdent = (c: string) => isLetter(c) || isDigit(c) || c === '.' || c === '-' || c === '_' || c === '/' || c === '%';
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isNewline = (c: string) => c === '\n' || c === '\r';

export class Lexer {
  private pos = 0;
  private line = 1;
  private lineStart = 0;

  constructor(private readonly input: string) {}

  private get ch(): string {
    return this.input[this.pos] ?? '';
  }

  private peek(): string {
    return this.input[this.pos + 1] ?? '';
  }

  next(): Token {
    while (isSpace(this.ch)) {
      if (this.ch === '\n') {
        this.line++;
        this.lineStart = this.pos + 1;
      }
      this.pos++;
    }
    const line = this.line;
    const column = this.pos - this.lineStart + 1;
    const tok = (type: TokenType, literal: string, extra: Partial<Token> = {}): Token => ({ type, literal, line, column, ...extra });
    const c = this.ch;
    if (c === '') return tok('EOF', '');
    if (SINGLE[c]) {
      this.pos++;
      return tok(SINGLE[c], c);
    }
    if (c === '#') return tok('COMMENT', this.until((x) => isNewline(x), 1));
    if (c === '{') {
      // Up to the first "}" (VHS reads a JSON theme so, without nesting), across lines.
      const end = this.input.indexOf('}', this.pos + 1);
      const stop = end < 0 ? this.input.length : end + 1;
      const literal = this.input.slice(this.pos, stop);
      this.advanceOver(stop);
      return tok('JSON', end < 0 ? `${literal}}` : literal, end < 0 ? { unterminated: true } : {});
    }
    if (c === '"' || c === "'" || c === '`') {
      const start = this.pos + 1;
      let i = start;
      while (i < this.input.length && this.input[i] !== c && !isNewline(this.input[i])) i++;
      const closed = this.input[i] === c;
      this.pos = closed ? i + 1 : i;
      return tok('STRING', this.input.slice(start, i), { quote: c, ...(closed ? {} : { unterminated: true }) });
    }
    if (c === '/') return this.regex(tok);
    if (isDigit(c) || (c === '.' && isDigit(this.peek()))) {
      const start = this.pos;
      while (isDigit(this.ch) || this.ch === '.') this.pos++;
      return tok('NUMBER', this.input.slice(start, this.pos));
    }
    if (isLetter(c) || c === '.') {
      const start = this.pos;
      while (isIdent(this.ch)) this.pos++;
      const word = this.input.slice(start, this.pos);
      if (UNITS[word]) return tok(UNITS[word], word);
      if (word === 'true' || word === 'false') return tok('BOOLEAN', word);
      return KEYWORDS.has(word) ? tok('KEYWORD', word) : tok('STRING', word, { quote: '' });
    }
    // One character (a whole code point) that starts no token.
    const cp = String.fromCodePoint(this.input.codePointAt(this.pos)!);
    this.pos += cp.length;
    return tok('ILLEGAL', cp);
  }

  private until(stop: (c: string) => boolean, skip: number): string {
    const start = this.pos + skip;
    let i = start;
    while (i < this.input.length && !stop(this.input[i])) i++;
    this.pos = i;
    return this.input.slice(start, i);
  }

  private advanceOver(stop: number): void {
    for (let i = this.pos; i < stop; i++) {
      if (this.input[i] === '\n') {
        this.line++;
        this.lineStart = i + 1;
      }
    }
    this.pos = stop;
  }

  /** `/.../`: a slash after an odd number of backslashes does not end it (lexer.go's readRegex). */
  private regex(tok: (type: TokenType, literal: string, extra?: Partial<Token>) => Token): Token {
    const start = this.pos + 1;
    let i = start;
    let closed = false;
    while (i < this.input.length && !isNewline(this.input[i])) {
      if (this.input[i] === '\\') {
        let n = 0;
        while (this.input[i] === '\\') {
          n++;
          i++;
        }
        if (this.input[i] === '/' && n % 2 === 1) i++;
        continue;
      }
      if (this.input[i] === '/') {
        closed = true;
        break;
      }
      i++;
    }
    this.pos = closed ? i + 1 : i;
    return tok('REGEX', this.input.slice(start, i), closed ? {} : { unterminated: true });
  }
}
