import { TapedeckError } from '../../core/diagnostics/errors.js';
import type { InputModes } from '../screen/screen.js';

/**
 * Seed 002 §10.2 key grammar → the bytes a real xterm sends (default
 * settings: metaSendsEscape, Backspace = DEL, no modifyOtherKeys). Modifiers on
 * special keys use xterm's CSI 1;m encoding, m = 1 + shift + 2·alt + 4·ctrl.
 */

export interface Modifiers {
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
}

const ESC = '\x1b';

/** Cursor keys: final byte; SS3 in application cursor mode (DECCKM), CSI otherwise. */
const CURSOR_KEYS: Record<string, string> = { up: 'A', down: 'B', right: 'C', left: 'D', home: 'H', end: 'F' };

/** Editing and function keys sent as CSI n ~. */
const TILDE_KEYS: Record<string, number> = {
  insert: 2, delete: 3, pageup: 5, pagedown: 6,
  f5: 15, f6: 17, f7: 18, f8: 19, f9: 20, f10: 21, f11: 23, f12: 24,
};

/** F1–F4 are SS3 P–S unmodified, CSI 1;m P–S with modifiers. */
const SS3_FUNCTION_KEYS: Record<string, string> = { f1: 'P', f2: 'Q', f3: 'R', f4: 'S' };

/** Numeric keypad: [normal bytes, SS3 final byte in application keypad mode (DECKPAM)]. */
const KEYPAD_KEYS: Record<string, [string, string]> = {
  kp0: ['0', 'p'], kp1: ['1', 'q'], kp2: ['2', 'r'], kp3: ['3', 's'], kp4: ['4', 't'],
  kp5: ['5', 'u'], kp6: ['6', 'v'], kp7: ['7', 'w'], kp8: ['8', 'x'], kp9: ['9', 'y'],
  kpenter: ['\r', 'M'], kpplus: ['+', 'k'], kpminus: ['-', 'm'], kpmultiply: ['*', 'j'],
  kpdivide: ['/', 'o'], kpdecimal: ['.', 'n'],
};

const ALIASES: Record<string, string> = {
  return: 'enter', esc: 'escape', del: 'delete', ins: 'insert', pgup: 'pageup', pgdn: 'pagedown',
  arrowup: 'up', arrowdown: 'down', arrowleft: 'left', arrowright: 'right', bs: 'backspace', spacebar: 'space',
};

const MODIFIER_NAMES: Record<string, keyof Modifiers> = {
  ctrl: 'ctrl', control: 'ctrl', alt: 'alt', meta: 'alt', option: 'alt', shift: 'shift',
};

export function invalidKey(key: string, reason: string): TapedeckError {
  return new TapedeckError('INVALID_KEYS', `unsupported key ${JSON.stringify(key)}: ${reason}`, {
    details: { key },
  });
}

/** Splits "ctrl+shift+p" into modifiers and a base key; "ctrl++" is ctrl and "+". */
export function parseChord(chord: string): { mods: Modifiers; base: string } {
  if (chord.length === 0) throw invalidKey(chord, 'empty key');
  const mods: Modifiers = { ctrl: false, alt: false, shift: false };
  let rest = chord;
  for (;;) {
    const plus = rest.indexOf('+');
    if (plus <= 0 || plus === rest.length - 1) break;
    const mod = MODIFIER_NAMES[rest.slice(0, plus).toLowerCase()];
    if (!mod) throw invalidKey(chord, `unknown modifier ${JSON.stringify(rest.slice(0, plus))} (use ctrl, alt or shift)`);
    mods[mod] = true;
    rest = rest.slice(plus + 1);
  }
  return { mods, base: rest };
}

function modifierParam(m: Modifiers): number {
  return 1 + (m.shift ? 1 : 0) + (m.alt ? 2 : 0) + (m.ctrl ? 4 : 0);
}

function anyModifier(m: Modifiers): boolean {
  return m.ctrl || m.alt || m.shift;
}

/**
 * Ctrl applied to a printable character, as xterm maps it (ctrl+a → 0x01,
 * ctrl+space → NUL); characters with no control code (ctrl+-, ctrl+1, ctrl+.)
 * send themselves, as xterm does without modifyOtherKeys.
 */
function ctrlChar(ch: string): string {
  const c = ch.toLowerCase();
  if (c >= 'a' && c <= 'z') return String.fromCharCode(c.charCodeAt(0) - 96);
  const table: Record<string, string> = {
    ' ': '\x00', '@': '\x00', '2': '\x00', '[': '\x1b', '3': '\x1b', '\\': '\x1c', '4': '\x1c',
    ']': '\x1d', '5': '\x1d', '^': '\x1e', '6': '\x1e', '_': '\x1f', '7': '\x1f', '/': '\x1f',
    '?': '\x7f', '8': '\x7f',
  };
  return table[c] ?? ch;
}

function encodeNamed(name: string, mods: Modifiers, modes: InputModes, chord: string): string | undefined {
  const alt = mods.alt ? ESC : '';
  const cursor = CURSOR_KEYS[name];
  if (cursor) {
    if (anyModifier(mods)) return `${ESC}[1;${modifierParam(mods)}${cursor}`;
    return modes.applicationCursorKeys ? `${ESC}O${cursor}` : `${ESC}[${cursor}`;
  }
  const tilde = TILDE_KEYS[name];
  if (tilde !== undefined) return anyModifier(mods) ? `${ESC}[${tilde};${modifierParam(mods)}~` : `${ESC}[${tilde}~`;
  const ss3 = SS3_FUNCTION_KEYS[name];
  if (ss3) return anyModifier(mods) ? `${ESC}[1;${modifierParam(mods)}${ss3}` : `${ESC}O${ss3}`;
  const keypad = KEYPAD_KEYS[name];
  if (keypad) {
    if (mods.ctrl || mods.shift) throw invalidKey(chord, 'keypad keys take no ctrl/shift');
    return alt + (modes.applicationKeypad ? `${ESC}O${keypad[1]}` : keypad[0]);
  }
  switch (name) {
    case 'enter':
      return `${alt}\r`;
    case 'tab':
      if (mods.shift) return `${alt}${ESC}[Z`;
      return `${alt}\t`;
    case 'escape':
      return `${alt}${ESC}`;
    case 'backspace':
      return alt + (mods.ctrl ? '\x08' : '\x7f');
    case 'space':
      return alt + (mods.ctrl ? '\x00' : ' ');
    default:
      return undefined;
  }
}

/** The bytes (as a string of UTF-16 code units, all < 0x80 except typed characters) for one chord. */
export function encodeKey(chord: string, modes: InputModes): string {
  const { mods, base } = parseChord(chord);
  const named = encodeNamed(ALIASES[base.toLowerCase()] ?? base.toLowerCase(), mods, modes, chord);
  if (named !== undefined && [...base].length > 1) return named;
  if ([...base].length !== 1) throw invalidKey(chord, 'not a key name (Enter, Tab, Escape, Backspace, Delete, Insert, Up, Down, Left, Right, Home, End, PageUp, PageDown, F1–F12, Space, KP0–KP9) or a single character');
  // A single character: itself, shifted, ctrl-mapped and/or ESC-prefixed for alt.
  let ch = mods.shift ? base.toUpperCase() : base;
  if (mods.ctrl) ch = ctrlChar(ch);
  return (mods.alt ? ESC : '') + ch;
}

/** Encodes keys in order; validates all of them before returning. */
export function encodeKeys(keys: string[], modes: InputModes): string {
  return keys.map((k) => encodeKey(k, modes)).join('');
}
