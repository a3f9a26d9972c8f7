import { describe, expect, it } from 'vitest';
import { TapedeckError } from '../../src/index.js';
import { encodeKey, encodeKeys } from '../../src/session/index.js';

const normal = { applicationCursorKeys: false, applicationKeypad: false, bracketedPaste: false };
const app = { applicationCursorKeys: true, applicationKeypad: true, bracketedPaste: false };

// Bytes a real xterm (default resources) sends, from xterm's ctlseqs "PC-Style Function Keys".
const TABLE: [key: string, normal: string, application: string][] = [
  ['Enter', '\r', '\r'],
  ['Tab', '\t', '\t'],
  ['shift+Tab', '\x1b[Z', '\x1b[Z'],
  ['Escape', '\x1b', '\x1b'],
  ['Backspace', '\x7f', '\x7f'],
  ['ctrl+Backspace', '\x08', '\x08'],
  ['alt+Backspace', '\x1b\x7f', '\x1b\x7f'],
  ['Space', ' ', ' '],
  ['ctrl+space', '\x00', '\x00'],
  // No control code: xterm (modifyOtherKeys off) sends the character itself.
  ['ctrl+-', '-', '-'],
  ['ctrl+1', '1', '1'],
  ['ctrl+.', '.', '.'],
  ['Up', '\x1b[A', '\x1bOA'],
  ['Down', '\x1b[B', '\x1bOB'],
  ['Right', '\x1b[C', '\x1bOC'],
  ['Left', '\x1b[D', '\x1bOD'],
  ['Home', '\x1b[H', '\x1bOH'],
  ['End', '\x1b[F', '\x1bOF'],
  ['shift+Up', '\x1b[1;2A', '\x1b[1;2A'],
  ['alt+Down', '\x1b[1;3B', '\x1b[1;3B'],
  ['ctrl+Right', '\x1b[1;5C', '\x1b[1;5C'],
  ['ctrl+shift+Left', '\x1b[1;6D', '\x1b[1;6D'],
  ['ctrl+alt+shift+Home', '\x1b[1;8H', '\x1b[1;8H'],
  ['Insert', '\x1b[2~', '\x1b[2~'],
  ['Delete', '\x1b[3~', '\x1b[3~'],
  ['PageUp', '\x1b[5~', '\x1b[5~'],
  ['PageDown', '\x1b[6~', '\x1b[6~'],
  ['ctrl+Delete', '\x1b[3;5~', '\x1b[3;5~'],
  ['shift+PageUp', '\x1b[5;2~', '\x1b[5;2~'],
  ['F1', '\x1bOP', '\x1bOP'],
  ['F2', '\x1bOQ', '\x1bOQ'],
  ['F3', '\x1bOR', '\x1bOR'],
  ['F4', '\x1bOS', '\x1bOS'],
  ['shift+F1', '\x1b[1;2P', '\x1b[1;2P'],
  ['ctrl+F4', '\x1b[1;5S', '\x1b[1;5S'],
  ['F5', '\x1b[15~', '\x1b[15~'],
  ['F6', '\x1b[17~', '\x1b[17~'],
  ['F7', '\x1b[18~', '\x1b[18~'],
  ['F8', '\x1b[19~', '\x1b[19~'],
  ['F9', '\x1b[20~', '\x1b[20~'],
  ['F10', '\x1b[21~', '\x1b[21~'],
  ['F11', '\x1b[23~', '\x1b[23~'],
  ['F12', '\x1b[24~', '\x1b[24~'],
  ['alt+shift+F10', '\x1b[21;4~', '\x1b[21;4~'],
  ['ctrl+F12', '\x1b[24;5~', '\x1b[24;5~'],
  ['a', 'a', 'a'],
  ['A', 'A', 'A'],
  ['shift+a', 'A', 'A'],
  ['ctrl+a', '\x01', '\x01'],
  ['ctrl+l', '\x0c', '\x0c'],
  ['ctrl+z', '\x1a', '\x1a'],
  ['ctrl+shift+p', '\x10', '\x10'],
  ['ctrl+[', '\x1b', '\x1b'],
  ['ctrl+\\', '\x1c', '\x1c'],
  ['ctrl+]', '\x1d', '\x1d'],
  ['ctrl+_', '\x1f', '\x1f'],
  ['ctrl+?', '\x7f', '\x7f'],
  ['alt+x', '\x1bx', '\x1bx'],
  ['alt+shift+x', '\x1bX', '\x1bX'],
  ['ctrl+alt+c', '\x1b\x03', '\x1b\x03'],
  ['alt+Enter', '\x1b\r', '\x1b\r'],
  ['+', '+', '+'],
  ['alt++', '\x1b+', '\x1b+'],
  ['é', 'é', 'é'],
  ['KP5', '5', '\x1bOu'],
  ['KPEnter', '\r', '\x1bOM'],
  ['KPPlus', '+', '\x1bOk'],
];

describe('key grammar → xterm bytes', () => {
  it.each(TABLE)('%j', (key, normalBytes, appBytes) => {
    expect(encodeKey(key, normal)).toBe(normalBytes);
    expect(encodeKey(key, app)).toBe(appBytes);
  });

  it('matches names case-insensitively, and aliases', () => {
    for (const k of ['enter', 'ENTER', 'Return', 'eNtEr']) expect(encodeKey(k, normal)).toBe('\r');
    expect(encodeKey('CTRL+SHIFT+P', normal)).toBe('\x10');
    expect(encodeKey('Esc', normal)).toBe('\x1b');
    expect(encodeKey('pgdn', normal)).toBe('\x1b[6~');
    expect(encodeKey('f1', normal)).toBe('\x1bOP');
  });

  it('encodes sequences in order', () => {
    expect(encodeKeys(['ctrl+l', 'g', 'g'], normal)).toBe('\x0cgg');
  });

  it.each([
    ['Hyper', 'not a key name'],
    ['F13', 'not a key name'],
    ['super+a', 'unknown modifier'],
    ['', 'empty key'],
    ['ctrl+KP5', 'keypad'],
  ])('rejects %j with INVALID_KEYS naming the key', (key, reason) => {
    let caught: unknown;
    try {
      encodeKey(key, normal);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TapedeckError);
    const err = caught as TapedeckError;
    expect(err.code).toBe('INVALID_KEYS');
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain(JSON.stringify(key));
    expect(err.message).toContain(reason);
  });
});
