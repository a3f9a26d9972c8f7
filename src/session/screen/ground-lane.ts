import type { Terminal as XTerm } from '@xterm/headless';
import { NON_ASCII, isPrintable, runPrinter } from './fast-print.js';
import { HandlerCache, hasHandlerTables, type CsiHandler, type HandlerTables } from './handler-cache.js';

/**
 * Most of what programs write, between sequences, is text, C0 controls (CR,
 * LF, BS, TAB) and CSIs with plain numeric parameters (SGR, cursor moves,
 * erases). xterm.js's parser walks its VT500 state table for every one of
 * those code points; this lane in front of it takes exactly those shapes
 * while the parser is in its ground state and calls the same handlers the
 * parser would, in the same order, with the same Params object. Everything
 * else (a sequence with a prefix, intermediates or sub-parameters, ESC
 * sequences, OSC, DCS, C1 controls, DEL, a CSI cut by the end of a write) goes
 * to xterm.js's own parser, which keeps its state across the pieces as it does
 * across writes. The shapes are checked against xterm.js's transition table
 * when the lane is installed (another release with another table: no lane).
 * test/terminal/ground-lane.test.ts holds the lane to the parser alone on
 * random streams. Playing a 50 MB cast, xterm.js's parser was the largest
 * cost left on the screen's thread.
 */

/** The parser states and actions the lane relies on (xterm.js's ParserState, ParserAction). */
const GROUND = 0;
const ESCAPE = 1;
const CSI_ENTRY = 3;
const CSI_PARAM = 4;
const PRINT = 2;
const EXECUTE = 3;
const CSI_DISPATCH = 7;
const PARAM = 8;
const CLEAR = 11;
/** _parseStack.state: "go on after a handler that finished" (chunkPos is the last code point done). */
const RESUME = 2;
/** _parseStack.state: a CSI handler returned a promise; the parser resumes it. */
const CSI_PAUSED = 3;

interface Params {
  reset(): void;
  addParam(value: number): void;
  addDigit(value: number): void;
}
type Parse = (this: Parser, data: Uint32Array, length: number, promiseResult?: boolean) => void | Promise<boolean>;
interface Parser extends HandlerTables {
  parse: Parse;
  currentState: number;
  precedingJoinState: number;
  _collect: number;
  _params: Params;
  _transitions: { table: Uint8Array };
  _parseStack: { state: number; chunkPos: number };
  _printHandler(data: Uint32Array, start: number, end: number): void;
  _executeHandlerFb(code: number): void;
  _csiHandlerFb(ident: number, params: Params): void;
  _preserveStack(state: number, handlers: CsiHandler[], handlerPos: number, transition: number, chunkPos: number): void;
}

const parserOf = (term: XTerm) => (term as unknown as { _core?: { _inputHandler?: { _parser?: Partial<Parser> } } })._core?._inputHandler?._parser;

const is = (table: Uint8Array, state: number, code: number, action: number, next: number) => table[(state << 8) | code] === ((action << 4) | next);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Whether xterm.js's parser is the one the lane was written against: its fields, and its table for every shape the lane takes. */
function hasShape(parser: Partial<Parser> | undefined): parser is Parser {
  if (!parser || typeof parser.parse !== 'function' || typeof parser._preserveStack !== 'function') return false;
  if (typeof parser._printHandler !== 'function' || typeof parser._executeHandlerFb !== 'function' || typeof parser._csiHandlerFb !== 'function') return false;
  if (!hasHandlerTables(parser as Partial<HandlerTables>) || typeof parser._parseStack?.state !== 'number') return false;
  if (typeof parser._params?.addDigit !== 'function' || typeof parser.currentState !== 'number' || typeof parser._collect !== 'number') return false;
  const table = parser._transitions?.table;
  if (!(table instanceof Uint8Array)) return false;
  const c0 = [...range(0x00, 0x17), 0x19, ...range(0x1c, 0x1f)];
  return (
    [...range(0x20, 0x7e), NON_ASCII].every((c) => is(table, GROUND, c, PRINT, GROUND)) &&
    c0.every((c) => is(table, GROUND, c, EXECUTE, GROUND)) &&
    is(table, GROUND, 0x1b, CLEAR, ESCAPE) &&
    is(table, ESCAPE, 0x5b, CLEAR, CSI_ENTRY) &&
    [...range(0x30, 0x39), 0x3b].every((c) => is(table, CSI_ENTRY, c, PARAM, CSI_PARAM) && is(table, CSI_PARAM, c, PARAM, CSI_PARAM)) &&
    range(0x40, 0x7e).every((c) => is(table, CSI_ENTRY, c, CSI_DISPATCH, GROUND) && is(table, CSI_PARAM, c, CSI_DISPATCH, GROUND))
  );
}

const isPlainParam = (c: number) => (c >= 0x30 && c <= 0x39) || c === 0x3b;

/** Parsers with the lane installed, and those where it was turned off again (removeGroundLane). */
const laned = new WeakSet<object>();
const turnedOff = new WeakSet<object>();

/** Installs the lane in front of the terminal's parser; left alone if xterm.js's parser is not the expected one. */
export function groundLane(term: XTerm): void {
  const parser = parserOf(term);
  if (!hasShape(parser) || laned.has(parser)) return;
  const parse = parser.parse;
  laned.add(parser);
  const stack = parser._parseStack;
  const params = parser._params;
  const handlers = new HandlerCache(parser);
  // The fast print's run printer, when it is installed (Screen installs it first).
  const printRun = runPrinter(term);
  /** xterm.js's parser on data[from, to), in the state it is in: its resume path starts it at `from`. */
  const parseRange = (data: Uint32Array, from: number, to: number) => {
    stack.state = RESUME;
    stack.chunkPos = from - 1;
    return parse.call(parser, data, to);
  };

  parser.parse = function (this: Parser, data: Uint32Array, length: number, promiseResult?: boolean) {
    // A write resumed after an async handler is the parser's own business.
    if (promiseResult !== undefined || stack.state !== 0 || turnedOff.has(this)) return parse.call(this, data, length, promiseResult);
    let i = 0;
    while (i < length) {
      let code = data[i];
      if (this.currentState === GROUND) {
        if (isPrintable(code)) {
          if (printRun) {
            i = printRun(data, i, length); // plain cells written as the run is read
            continue;
          }
          let j = i + 1;
          while (j < length && isPrintable(data[j])) j++;
          this._printHandler(data, i, j);
          i = j;
          continue;
        }
        if (code < 0x20 && code !== 0x1b && code !== 0x18 && code !== 0x1a) {
          const execute = handlers.executeHandler(code);
          if (execute) execute();
          else this._executeHandlerFb(code);
          this.precedingJoinState = 0;
          i++;
          continue;
        }
        if (code === 0x1b && data[i + 1] === 0x5b) {
          // ESC [ digits and semicolons, then the final byte, all in this write.
          let j = i + 2;
          while (j < length && isPlainParam((code = data[j]))) j++;
          if (j < length && code >= 0x40 && code <= 0x7e) {
            // As the parser's CLEAR (at ESC and at '['), PARAM for each parameter byte, then CSI_DISPATCH.
            params.reset();
            params.addParam(0);
            this._collect = 0;
            for (let k = i + 2; k < j; k++) {
              const c = data[k];
              if (c === 0x3b) params.addParam(0);
              else params.addDigit(c - 0x30);
            }
            // The parser's state while its handlers run (it moves to GROUND only after them, so a handler that throws leaves it here).
            this.currentState = j > i + 2 ? CSI_PARAM : CSI_ENTRY;
            const csi = handlers.csiHandlers(code);
            let h = csi ? csi.length - 1 : -1;
            for (; h >= 0; h--) {
              const result = csi![h](params);
              if (result === true) break;
              if (result instanceof Promise) {
                // Paused as the parser pauses: it resumes the handlers, then the code points after the final byte.
                this._preserveStack(CSI_PAUSED, csi!, h, (CSI_DISPATCH << 4) | GROUND, j);
                return result;
              }
            }
            if (h < 0) this._csiHandlerFb(code, params);
            this.precedingJoinState = 0;
            this.currentState = GROUND;
            i = j + 1;
            continue;
          }
        }
      }
      // Anything else goes to xterm.js's parser, up to the next ESC or past the next line feed.
      let j = i + 1;
      while (j < length && (code = data[j]) !== 0x1b && code !== 0x0a) j++;
      if (j < length && code === 0x0a) j++;
      const paused = parseRange(data, i, j);
      if (paused) return paused;
      i = j;
    }
  };
}

/**
 * Turns the lane off, leaving xterm.js's parser alone at work: the reference side of the test that holds the
 * two alike. (The lane's wrapper stays in place, passing every write through, so wrappers installed after it
 * keep working.)
 */
export function removeGroundLane(term: XTerm): boolean {
  const parser = parserOf(term);
  if (!parser || !laned.has(parser) || turnedOff.has(parser)) return false;
  turnedOff.add(parser);
  return true;
}
