import { TapedeckError } from '../../core/diagnostics/errors.js';

/**
 * Mouse input, encoded the way xterm sends it (XTerm Control Sequences,
 * "Mouse Tracking"), for the tracking mode and coordinate encoding the program
 * asked for. Nothing is sent while the program has not enabled reporting: a
 * real terminal would use the mouse for selection then, and the program sees
 * nothing.
 *
 * Event code Cb: button 0 left, 1 middle, 2 right, 3 release (or no button,
 * for motion); +4 shift, +8 meta (alt), +16 control; +32 for motion; wheel up
 * and down are 64 and 65 (left and right 66, 67), pressed only. X10 (mode 9)
 * reports presses of the three buttons alone, and nothing when a modifier is
 * held (xterm's button.c). Positions are 1-based, column first.
 */
export type MouseButton = 'left' | 'middle' | 'right';
export type MouseModifier = 'shift' | 'alt' | 'meta' | 'ctrl';
export type WheelDirection = 'up' | 'down' | 'left' | 'right';
/** DECSET 9, 1000, 1002, 1003; none while the program has not enabled any. */
export type MouseTracking = 'none' | 'x10' | 'normal' | 'button' | 'any';
/** How positions are written: DECSET 1005 (UTF-8), 1006 (SGR), 1015 (urxvt), else the original bytes. */
export type MouseEncoding = 'default' | 'utf8' | 'sgr' | 'urxvt';

export interface MouseModes {
  tracking: MouseTracking;
  encoding: MouseEncoding;
}

export interface MouseOptions {
  button?: MouseButton;
  modifiers?: readonly MouseModifier[];
}

/** One pointer event, before encoding. Rows and columns are 0-based, as snapshots number cells. */
export interface PointerEvent {
  type: 'press' | 'release' | 'motion' | 'wheel';
  row: number;
  col: number;
  /** The button pressed, released or held (motion); none for a motion with no button held. */
  button?: MouseButton;
  wheel?: WheelDirection;
  modifiers?: readonly MouseModifier[];
}

const BUTTON_CODE: Record<MouseButton, number> = { left: 0, middle: 1, right: 2 };
const WHEEL_CODE: Record<WheelDirection, number> = { up: 64, down: 65, left: 66, right: 67 };
const MODIFIER_BITS: Record<MouseModifier, number> = { shift: 4, alt: 8, meta: 8, ctrl: 16 };
export const MOUSE_BUTTONS: readonly MouseButton[] = ['left', 'middle', 'right'];
export const MOUSE_MODIFIERS: readonly MouseModifier[] = ['shift', 'alt', 'meta', 'ctrl'];
export const WHEEL_DIRECTIONS: readonly WheelDirection[] = ['up', 'down', 'left', 'right'];

/** Largest 0-based position each byte encoding can carry; xterm sends a 0 byte for it (the past-end marker). */
const DEFAULT_LIMIT = 255 - 32;
const UTF8_LIMIT = 2047 - 32;

function position(value: number, encoding: MouseEncoding): string {
  if (encoding === 'sgr' || encoding === 'urxvt') return String(value + 1);
  const limit = encoding === 'utf8' ? UTF8_LIMIT : DEFAULT_LIMIT;
  const v = Math.min(value, limit);
  if (v === limit) return '\x00';
  // UTF-8 mode writes values from 128 on as two-byte UTF-8 (xterm's EmitMousePosition): as a code point here.
  return String.fromCharCode(32 + v + 1);
}

/**
 * The bytes xterm sends for one pointer event under `modes`, or undefined when
 * it sends nothing (reporting off, a motion the mode does not report, a
 * release under X10...). The result is a string of code points: encode it as
 * UTF-8 (in the default encoding every code point is below 256 and is sent as
 * that byte, see mouseBytes).
 */
export function encodePointerEvent(event: PointerEvent, modes: MouseModes): string | undefined {
  const { tracking, encoding } = modes;
  if (tracking === 'none') return undefined;
  const mods = (event.modifiers ?? []).reduce((bits, m) => bits | MODIFIER_BITS[m], 0);
  let code: number;
  switch (event.type) {
    case 'press':
      code = BUTTON_CODE[event.button ?? 'left'];
      break;
    case 'release':
      if (tracking === 'x10') return undefined;
      code = encoding === 'sgr' ? BUTTON_CODE[event.button ?? 'left'] : 3;
      break;
    case 'wheel':
      if (tracking === 'x10') return undefined;
      code = WHEEL_CODE[event.wheel ?? 'up'];
      break;
    case 'motion':
      if (tracking === 'x10' || tracking === 'normal') return undefined;
      if (!event.button && tracking !== 'any') return undefined;
      code = 32 + (event.button ? BUTTON_CODE[event.button] : 3);
      break;
  }
  if (tracking === 'x10') {
    if (mods !== 0) return undefined;
  } else {
    code |= mods;
  }
  const col = position(event.col, encoding);
  const row = position(event.row, encoding);
  if (encoding === 'sgr') return `\x1b[<${code};${col};${row}${event.type === 'release' ? 'm' : 'M'}`;
  if (encoding === 'urxvt') return `\x1b[${code + 32};${col};${row}M`;
  return `\x1b[M${String.fromCharCode(code + 32)}${col}${row}`;
}

/** The bytes to write for an encoded event: code points as single bytes in the default encoding, else UTF-8. */
export function mouseBytes(encoded: string, encoding: MouseEncoding): Buffer {
  return Buffer.from(encoded, encoding === 'default' ? 'latin1' : 'utf8');
}

/** A press and release of one button at one cell. */
export function clickEvents(row: number, col: number, options: MouseOptions = {}): PointerEvent[] {
  const base = { row, col, button: options.button ?? 'left', modifiers: options.modifiers };
  return [{ type: 'press', ...base }, { type: 'release', ...base }];
}

/**
 * Press at `from`, motion through `steps` cells on the straight line to `to`
 * (one motion per cell that changes, as xterm reports them), release at `to`.
 */
export function dragEvents(from: { row: number; col: number }, to: { row: number; col: number }, options: MouseOptions & { steps?: number } = {}): PointerEvent[] {
  const button = options.button ?? 'left';
  const modifiers = options.modifiers;
  const steps = Math.max(1, options.steps ?? 1);
  const events: PointerEvent[] = [{ type: 'press', row: from.row, col: from.col, button, modifiers }];
  let last = from;
  for (let i = 1; i <= steps; i++) {
    const at = { row: Math.round(from.row + ((to.row - from.row) * i) / steps), col: Math.round(from.col + ((to.col - from.col) * i) / steps) };
    if (at.row === last.row && at.col === last.col) continue;
    events.push({ type: 'motion', ...at, button, modifiers });
    last = at;
  }
  events.push({ type: 'release', row: to.row, col: to.col, button, modifiers });
  return events;
}

/** `count` wheel notches at one cell. */
export function scrollEvents(row: number, col: number, direction: WheelDirection, options: { count?: number; modifiers?: readonly MouseModifier[] } = {}): PointerEvent[] {
  return Array.from({ length: options.count ?? 1 }, () => ({ type: 'wheel' as const, row, col, wheel: direction, modifiers: options.modifiers }));
}

/** Checks a pointer position and options against the screen; a mistake is INVALID_INPUT naming it. */
export function checkPointer(row: number, col: number, size: { rows: number; cols: number }, options: MouseOptions = {}): void {
  for (const [name, v, max] of [['row', row, size.rows], ['col', col, size.cols]] as const) {
    if (!Number.isInteger(v) || v < 0 || v >= max) {
      throw new TapedeckError('INVALID_INPUT', `mouse ${name} must be a whole number from 0 to ${max - 1} (0-based, as snapshots number cells), got ${v}`);
    }
  }
  if (options.button !== undefined && !MOUSE_BUTTONS.includes(options.button)) {
    throw new TapedeckError('INVALID_INPUT', `mouse button must be one of ${MOUSE_BUTTONS.join(', ')}, got ${JSON.stringify(options.button)}`);
  }
  for (const m of options.modifiers ?? []) {
    if (!MOUSE_MODIFIERS.includes(m)) throw new TapedeckError('INVALID_INPUT', `mouse modifier must be one of ${MOUSE_MODIFIERS.join(', ')}, got ${JSON.stringify(m)}`);
  }
}

/** The DEC private modes that choose a coordinate encoding; the last one set wins, and resetting it returns to the default. */
const ENCODING_MODES: Record<number, MouseEncoding> = { 1005: 'utf8', 1006: 'sgr', 1015: 'urxvt' };

interface ParserHost {
  parser: {
    registerCsiHandler(id: { prefix?: string; final: string }, handler: (params: (number | number[])[]) => boolean): { dispose(): void };
    registerEscHandler(id: { final: string }, handler: () => boolean): { dispose(): void };
  };
}

/**
 * Follows DECSET/DECRST 1005, 1006 and 1015 on a terminal. xterm.js tracks
 * 1006 itself but ignores 1005 and 1015, so the encoding is kept here; the
 * tracking mode comes from xterm.js (`modes.mouseTrackingMode`). The handlers
 * return false so xterm.js still acts on the same sequence.
 */
export class MouseEncodingTracker {
  encoding: MouseEncoding = 'default';

  constructor(term: ParserHost) {
    const on = (set: boolean) => (params: (number | number[])[]) => {
      for (const p of params) {
        const mode = ENCODING_MODES[typeof p === 'number' ? p : -1];
        if (!mode) continue;
        if (set) this.encoding = mode;
        else if (this.encoding === mode) this.encoding = 'default';
      }
      return false;
    };
    term.parser.registerCsiHandler({ prefix: '?', final: 'h' }, on(true));
    term.parser.registerCsiHandler({ prefix: '?', final: 'l' }, on(false));
    // RIS (ESC c) resets the mouse modes in xterm.js too.
    term.parser.registerEscHandler({ final: 'c' }, () => {
      this.encoding = 'default';
      return false;
    });
  }
}

const TRACKING: Record<string, MouseTracking> = { none: 'none', x10: 'x10', vt200: 'normal', drag: 'button', any: 'any' };

/** xterm.js's name for the tracking mode (`modes.mouseTrackingMode`) in ctlseqs' terms. */
export function trackingFromXterm(mode: string): MouseTracking {
  return TRACKING[mode] ?? 'none';
}

/** What a mouse action did: nothing is sent (sent false) while the program has not enabled reporting, or when its mode reports none of the events. */
export interface MouseResult {
  sent: boolean;
  bytesWritten: number;
  /** Seq of the input event, when bytes were sent. */
  seq?: number;
  tracking: MouseTracking;
  encoding: MouseEncoding;
  /** How many pointer events the mode reported (a click under X10: 1, the press). */
  events: number;
}

/** The bytes for a sequence of pointer events under `modes`, and how many of them the mode reports. */
export function pointerBytes(events: readonly PointerEvent[], modes: MouseModes): { bytes: Buffer; events: number } {
  const encoded = events.map((e) => encodePointerEvent(e, modes)).filter((s): s is string => s !== undefined);
  return { bytes: mouseBytes(encoded.join(''), modes.encoding), events: encoded.length };
}

export type MouseActionName = 'click' | 'drag' | 'scroll' | 'move';

/**
 * A mouse action checked against the screen and turned into pointer events,
 * with the one-line name the event log keeps beside its bytes
 * (`click left at row 3, col 10`). A mistake is INVALID_INPUT naming it.
 */
export function mouseAction(
  action: MouseActionName,
  size: { rows: number; cols: number },
  at: readonly { row: number; col: number }[],
  options: MouseOptions & { steps?: number; count?: number; direction?: WheelDirection } = {},
): { events: PointerEvent[]; description: string } {
  for (const p of at) checkPointer(p.row, p.col, size, options);
  const [{ row, col }] = at;
  const button = options.button ?? 'left';
  const mods = options.modifiers?.length ? `${options.modifiers.join('+')}+` : '';
  switch (action) {
    case 'click':
      return { events: clickEvents(row, col, options), description: `click ${mods}${button} at row ${row}, col ${col}` };
    case 'drag': {
      const steps = options.steps ?? 1;
      if (!Number.isInteger(steps) || steps < 1 || steps > 10_000) throw new TapedeckError('INVALID_INPUT', `drag steps must be a whole number from 1 to 10000, got ${steps}`);
      return { events: dragEvents(at[0], at[1], options), description: `drag ${mods}${button} from row ${row}, col ${col} to row ${at[1].row}, col ${at[1].col}` };
    }
    case 'scroll': {
      const direction = options.direction ?? 'down';
      if (!WHEEL_DIRECTIONS.includes(direction)) throw new TapedeckError('INVALID_INPUT', `scroll direction must be one of ${WHEEL_DIRECTIONS.join(', ')}, got ${JSON.stringify(direction)}`);
      const count = options.count ?? 1;
      if (!Number.isInteger(count) || count < 1 || count > 1000) throw new TapedeckError('INVALID_INPUT', `scroll count must be a whole number from 1 to 1000, got ${count}`);
      return { events: scrollEvents(row, col, direction, { count, modifiers: options.modifiers }), description: `scroll ${mods}${direction} x${count} at row ${row}, col ${col}` };
    }
    case 'move':
      return { events: [{ type: 'motion', row, col, modifiers: options.modifiers }], description: `move ${mods}to row ${row}, col ${col}` };
  }
}
