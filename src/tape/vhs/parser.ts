import type { VhsCommand, VhsDiagnostic, VhsKey, VhsLocation, VhsOutputKind, VhsSettingName } from './ast.js';
import type { Token } from './lexer.js';
import { TokenCursor } from './cursor.js';
import { setCommand } from './settings.js';

/**
 * The VHS grammar as charmbracelet/vhs's parser/parser.go accepts it, with
 * every problem collected (a compiler's several errors in one pass) instead of
 * VHS's run-time failures: settings are checked here, so a bad tape never
 * starts a shell. `Source` is left as a command for the loader (load.ts).
 */
export type ParsedCommand = VhsCommand | { kind: 'Source'; path: string; at: VhsLocation; pathToken: Token };

export interface ParseResult {
  commands: ParsedCommand[];
  errors: VhsDiagnostic[];
}

/** The longest string one Type or Copy may carry: a 10 MB Type is an error, not an hour of typing. */
export const MAX_TYPE_CHARS = 64 * 1024;

const KEYS: Record<string, VhsKey> = {
  Backspace: 'Backspace', Delete: 'Delete', Insert: 'Insert', Enter: 'Enter', Space: 'Space', Tab: 'Tab',
  Escape: 'Escape', Up: 'Up', Down: 'Down', Left: 'Left', Right: 'Right', PageUp: 'PageUp', PageDown: 'PageDown',
  Home: 'Home', End: 'End',
};

const COMMANDS = 'Type, Sleep, Enter, Backspace, Ctrl+..., Set, Output, Wait, Hide, Show, Screenshot, Source, ...';

const OUTPUT_KINDS: Record<string, VhsOutputKind> = { '.gif': 'gif', '.webm': 'webm', '.mp4': 'mp4', '.txt': 'txt', '.ascii': 'ascii', '.test': 'txt', '.cast': 'cast' };

export function parseTape(input: string, file: string): ParseResult {
  return new Parser(input, file).parse();
}

class Parser extends TokenCursor {
  parse(): ParseResult {
    const commands: ParsedCommand[] = [];
    while (this.cur.type !== 'EOF') {
      if (this.cur.type !== 'COMMENT') {
        const before = this.errors.length;
        const line = this.cur.line;
        const cmd = this.command();
        if (cmd) commands.push(cmd);
        // The rest of a line with an error belongs to the bad command: one error per mistake.
        if (this.errors.length > before) this.skipLine(Math.max(line, this.cur.line));
      }
      this.advance();
    }
    return { commands, errors: this.errors };
  }

  private command(): ParsedCommand | undefined {
    const t = this.cur;
    const at = this.at(t);
    if (t.type === 'ILLEGAL' && t.literal === '\0') {
      this.error(t, 'NUL byte in the tape (VHS would stop reading here); expected a command');
      return undefined;
    }
    if (t.type !== 'KEYWORD') {
      this.error(t, `expected a command (${COMMANDS}), got ${this.describe(t)}`);
      this.skipLine(t.line);
      return undefined;
    }
    const w = t.literal;
    if (KEYS[w]) return { kind: 'Key', key: KEYS[w], ...this.speed(), count: this.repeat(), at };
    if (w === 'ScrollUp' || w === 'ScrollDown') return { kind: 'Scroll', direction: w === 'ScrollUp' ? -1 : 1, ...this.speed(), count: this.repeat(), at };
    switch (w) {
      case 'Set':
        return setCommand(this, at);
      case 'Output':
        return this.output(at);
      case 'Sleep': {
        const ms = this.time(t);
        return ms === undefined ? undefined : { kind: 'Sleep', ms, at };
      }
      case 'Type':
      case 'Copy':
        return this.typed(w, at);
      case 'Ctrl':
        return this.ctrl(at);
      case 'Alt':
      case 'Shift':
        return this.modified(w, at);
      case 'Hide':
      case 'Show':
      case 'Paste':
        return { kind: w, at };
      case 'Require': {
        if (this.peek.type !== 'STRING') {
          this.error(this.peek, `Require expects one program name, got ${this.describe(this.peek)}`);
          return undefined;
        }
        this.advance();
        return { kind: 'Require', program: this.cur.literal, at };
      }
      case 'Wait':
        return this.wait(at);
      case 'Source':
      case 'Screenshot':
        return this.pathCommand(w, at);
      case 'Env':
        return this.env(at);
      default:
        this.error(t, `${w} is a setting, not a command: write Set ${w} VALUE`);
        this.skipLine(t.line);
        return undefined;
    }
  }

  private speed(): { speedMs?: number } {
    if (this.peek.type !== 'AT') return {};
    this.advance();
    const ms = this.time(this.cur);
    return ms === undefined ? {} : { speedMs: ms };
  }

  private repeat(): number {
    if (this.peek.type !== 'NUMBER') return 1;
    this.advance();
    if (!/^\d+$/.test(this.cur.literal) || Number(this.cur.literal) > 100_000) {
      this.error(this.cur, `expected a repeat count (a whole number up to 100000), got ${this.cur.literal}`);
      return 1;
    }
    return Number(this.cur.literal);
  }

  private output(at: VhsLocation): ParsedCommand | undefined {
    if (this.peek.type !== 'STRING') {
      this.error(this.peek, `expected a file path after Output (demo.gif, demo.txt, demo.ascii, demo.cast, frames/), got ${this.describe(this.peek)}`);
      return undefined;
    }
    this.advance();
    const path = this.cur.literal;
    const ext = /(\.[^./]*)$/.exec(path.split('/').pop() ?? '')?.[1];
    if (!ext) {
      if (!path.endsWith('/')) {
        this.error(this.cur, 'expected a file with an extension (.gif, .webm, .mp4, .txt, .ascii, .cast) or a folder with a trailing slash');
        return undefined;
      }
      return { kind: 'Output', path, format: 'frames', at };
    }
    return { kind: 'Output', path, format: OUTPUT_KINDS[ext] ?? 'gif', at };
  }

  private typed(kind: 'Type' | 'Copy', at: VhsLocation): ParsedCommand | undefined {
    const speed = kind === 'Type' ? this.speed() : {};
    if (this.peek.type !== 'STRING') {
      this.error(this.peek, `${kind} expects a string ("text", 'text' or \`text\`), got ${this.describe(this.peek)}`);
      return undefined;
    }
    const parts: string[] = [];
    const first = this.peek;
    let length = 0;
    while (this.peek.type === 'STRING') {
      this.advance();
      length += this.cur.literal.length + 1;
      if (length <= MAX_TYPE_CHARS + 1) parts.push(this.cur.literal);
    }
    if (length - 1 > MAX_TYPE_CHARS) {
      this.error(first, `${kind} string is ${length - 1} characters long; at most ${MAX_TYPE_CHARS} per command (split it, or write it to a file the tape reads)`);
      return undefined;
    }
    const text = parts.join(' ');
    if (text.includes('\0')) {
      this.error(first, `${kind} string holds a NUL byte, which a terminal cannot type; use Ctrl+@ for NUL`);
      return undefined;
    }
    return kind === 'Type' ? { kind, text, ...speed, at } : { kind, text, at };
  }

  private ctrl(at: VhsLocation): ParsedCommand | undefined {
    const modifiers: ('Alt' | 'Shift')[] = [];
    let key: string | undefined;
    let ok = true;
    const start = this.cur;
    while (this.peek.type === 'PLUS') {
      this.advance();
      const p = this.peek;
      if (p.type === 'KEYWORD' && (p.literal === 'Alt' || p.literal === 'Shift')) {
        if (key !== undefined) {
          this.error(p, 'modifiers must come before the key (Ctrl+Alt+X, not Ctrl+X+Alt)');
          ok = false;
        } else modifiers.push(p.literal);
        this.advance();
        continue;
      }
      const keyword = p.type === 'KEYWORD' && ['Enter', 'Space', 'Backspace', 'Left', 'Right', 'Up', 'Down'].includes(p.literal);
      const single = ['MINUS', 'AT', 'LEFT_BRACKET', 'RIGHT_BRACKET', 'CARET', 'BACKSLASH'].includes(p.type) || (p.type === 'STRING' && p.quote === '' && p.literal.length === 1);
      if (key !== undefined || !(keyword || single)) {
        this.error(p, `expected one key after Ctrl+ (a letter, @ [ ] \\ ^ -, Enter, Space, Backspace or an arrow), got ${this.describe(p)}`);
        ok = false;
      } else key = p.literal;
      this.advance();
    }
    if (key === undefined) {
      if (ok) this.error(this.peek.line === start.line ? this.peek : start, 'expected Ctrl+KEY (for example Ctrl+C or Ctrl+Alt+Delete... Ctrl+Shift+O)');
      return undefined;
    }
    return ok ? { kind: 'Ctrl', modifiers, key, at } : undefined;
  }

  private modified(kind: 'Alt' | 'Shift', at: VhsLocation): ParsedCommand | undefined {
    if (this.peek.type === 'PLUS') {
      this.advance();
      const p = this.peek;
      if (p.type === 'STRING' || (p.type === 'KEYWORD' && (p.literal === 'Enter' || p.literal === 'Tab')) || p.type === 'LEFT_BRACKET' || p.type === 'RIGHT_BRACKET') {
        this.advance();
        return { kind, key: p.literal, at };
      }
      this.error(p, `expected a key after ${kind}+ (a character, Enter, Tab, [ or ]), got ${this.describe(p)}`);
      return undefined;
    }
    this.error(this.peek, `expected ${kind}+KEY, got ${this.describe(this.peek)}`);
    return undefined;
  }

  private wait(at: VhsLocation): ParsedCommand | undefined {
    let scope: 'Line' | 'Screen' = 'Line';
    if (this.peek.type === 'PLUS') {
      this.advance();
      const p: Token = this.peek;
      if (p.type !== 'STRING' || (p.literal !== 'Line' && p.literal !== 'Screen')) {
        this.error(p, `Wait+ expects Line or Screen, got ${this.describe(p)}`);
        return undefined;
      }
      this.advance();
      scope = this.cur.literal as 'Line' | 'Screen';
    }
    let timeoutMs: number | undefined;
    if (this.peek.type === 'AT') {
      this.advance();
      timeoutMs = this.time(this.cur);
      if (timeoutMs === undefined) return undefined;
      if (timeoutMs <= 0) {
        this.error(this.cur, 'Wait expects a positive timeout');
        return undefined;
      }
    }
    if (this.peek.type !== 'REGEX') return { kind: 'Wait', scope, timeoutMs, at };
    this.advance();
    if (!this.checkRegex(this.cur)) return undefined;
    return { kind: 'Wait', scope, timeoutMs, pattern: this.cur.literal, at };
  }

  private pathCommand(kind: 'Source' | 'Screenshot', at: VhsLocation): ParsedCommand | undefined {
    const ext = kind === 'Source' ? '.tape' : '.png';
    if (this.peek.type !== 'STRING') {
      this.error(this.peek, `expected a path after ${kind} (a ${ext} file), got ${this.describe(this.peek)}`);
      return undefined;
    }
    this.advance();
    const path = this.cur.literal;
    if (!path.endsWith(ext) || path.length === ext.length) {
      this.error(this.cur, `expected a file with the ${ext} extension, got "${path}"`);
      return undefined;
    }
    return kind === 'Source' ? { kind, path, at, pathToken: this.cur } : { kind, path, at };
  }

  private env(at: VhsLocation): ParsedCommand | undefined {
    if (this.peek.type !== 'STRING' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(this.peek.literal)) {
      this.error(this.peek, `expected a variable name after Env, got ${this.describe(this.peek)}`);
      this.skipLine(this.cur.line);
      return undefined;
    }
    this.advance();
    const name = this.cur.literal;
    if (this.peek.type !== 'STRING') {
      this.error(this.peek, `Env ${name} expects a string value, got ${this.describe(this.peek)}`);
      return undefined;
    }
    this.advance();
    return { kind: 'Env', name, value: this.cur.literal, at };
  }
}

export { type VhsSettingName };
