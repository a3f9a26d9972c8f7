import type { VhsDiagnostic, VhsLocation } from './ast.js';
import { Lexer, type Token } from './lexer.js';
import { compileGoRegex, durationMs } from './values.js';

/** The parser's view of the token stream (cur, peek), its errors and the value readers the commands share. */
export class TokenCursor {
  private readonly lexer: Lexer;
  private readonly lines: string[];
  cur!: Token;
  peek!: Token;
  readonly errors: VhsDiagnostic[] = [];

  constructor(input: string, readonly file: string) {
    this.lexer = new Lexer(input);
    this.lines = input.split('\n');
    this.advance();
    this.advance();
  }

  advance(): void {
    this.cur = this.peek;
    let next = this.lexer.next();
    while (next.type === 'COMMENT' && this.cur?.type !== 'KEYWORD') next = this.lexer.next(); // comments only matter as a MarginFill colour
    this.peek = next;
  }

  lineText(line: number): string {
    return (this.lines[line - 1] ?? '').replace(/\r$/, '');
  }

  at(t: Token): VhsLocation {
    return { file: this.file, line: t.line, column: t.column, text: this.lineText(t.line) };
  }

  error(t: Token, message: string): void {
    if (t === this.peek && this.cur && t.line !== this.cur.line) {
      // What was expected is missing at the end of the line: point just after the last token on it.
      const c = this.cur;
      const column = c.column + Math.min(c.literal.length + (c.quote ? 2 : 0), 10_000);
      this.errors.push({ file: this.file, line: c.line, column, length: 1, message, text: this.lineText(c.line) });
      return;
    }
    const length = t.type === 'EOF' ? 1 : Math.max(1, Math.min(t.literal.length + (t.quote ? 2 : 0), 10_000));
    this.errors.push({ file: this.file, line: t.line, column: t.column, length, message, text: this.lineText(t.line) });
  }

  describe(t: Token): string {
    if (t.type === 'EOF') return 'the end of the file';
    if (t.type === 'STRING') return t.quote ? `the string ${t.quote}${t.literal}${t.quote}` : `"${t.literal}"`;
    if (t.type === 'KEYWORD') return `the keyword ${t.literal}`;
    if (t.type === 'NUMBER') return `the number ${t.literal}`;
    return `"${t.literal}"`;
  }

  /** After an error, the rest of the line belongs to the bad command. */
  skipLine(line: number): void {
    while (this.peek.type !== 'EOF' && this.peek.line === line) this.advance();
  }

  /** `<number>[ms|s|m]` after the current token (bare numbers are seconds); parser.go's parseTime. */
  time(after: Token, units: readonly string[] = ['MILLISECONDS', 'SECONDS', 'MINUTES']): number | undefined {
    if (this.peek.type !== 'NUMBER') {
      this.error(this.peek, `expected a time after ${after.literal} (500ms, 2s, 1m or a number of seconds), got ${this.describe(this.peek)}`);
      return undefined;
    }
    this.advance();
    const number = this.cur;
    let unit = 's';
    if (units.includes(this.peek.type)) {
      this.advance();
      unit = this.cur.literal;
    }
    const ms = durationMs(number.literal, unit);
    if (ms === undefined) this.error(number, `expected a time such as 500ms or 1.5s, got ${number.literal}${unit}`);
    return ms;
  }

  checkRegex(t: Token): boolean {
    if (t.unterminated) {
      this.error(t, `unterminated regular expression /${t.literal}: expected a closing /`);
      return false;
    }
    try {
      compileGoRegex(t.literal);
      return true;
    } catch (err) {
      this.error(t, `invalid regular expression /${t.literal}/: ${(err as Error).message}`);
      return false;
    }
  }
}
