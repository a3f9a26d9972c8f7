import { escapeControl } from '../../core/text/escape.js';
import { encodeKey } from '../../session/input/keys.js';

/**
 * Human names for recorded terminal input: the bytes with control characters
 * escaped, plus the keys they spell when they contain any (`"\e[A" (Up)`,
 * `":wq\r" (":wq", Enter)`). A cast stores bytes only, so keys are recognised
 * by the sequences a real xterm sends for them.
 */

/** Control characters shown, newlines included (a description is one line). */
export function escapeControlChars(text: string): string {
  return escapeControl(text, { newlines: 'escape' });
}

const NAMED_KEYS = [
  'Enter', 'Tab', 'shift+Tab', 'Escape', 'Backspace', 'Up', 'Down', 'Left', 'Right', 'Home', 'End', 'PageUp', 'PageDown',
  'Insert', 'Delete', ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
  ...['Up', 'Down', 'Left', 'Right'].flatMap((k) => [`shift+${k}`, `ctrl+${k}`, `alt+${k}`]),
];

let sequences: Map<string, string> | undefined;

/** Byte sequence → key name, for both cursor-key modes (normal CSI and application SS3). */
function keySequences(): Map<string, string> {
  if (sequences) return sequences;
  sequences = new Map();
  for (const applicationCursorKeys of [false, true]) {
    const modes = { applicationCursorKeys, applicationKeypad: false, bracketedPaste: false };
    for (const name of NAMED_KEYS) if (!sequences.has(encodeKey(name, modes))) sequences.set(encodeKey(name, modes), name);
  }
  for (let c = 1; c <= 26; c++) {
    const ch = String.fromCharCode(c);
    if (!sequences.has(ch)) sequences.set(ch, `ctrl+${String.fromCharCode(96 + c)}`);
  }
  sequences.set('\x00', 'ctrl+Space');
  sequences.set('\n', 'ctrl+j');
  return sequences;
}

/** Splits input into typed text runs and named keys; undefined when it is all plain text. */
export function inputKeys(text: string): string[] | undefined {
  const table = keySequences();
  const longest = Math.max(...[...table.keys()].map((k) => k.length));
  const out: string[] = [];
  let run = '';
  let found = false;
  let i = 0;
  const named = (name: string, length: number) => {
    if (run) out.push(quote(run));
    run = '';
    out.push(name);
    found = true;
    i += length;
  };
  while (i < text.length) {
    let hit: string | undefined;
    let len = 0;
    for (let n = Math.min(longest, text.length - i); n >= 2 && !hit; n--) {
      hit = table.get(text.slice(i, i + n));
      len = n;
    }
    if (hit) named(hit, len);
    // ESC + character is how xterm sends alt+character.
    else if (text[i] === '\x1b' && i + 1 < text.length && text[i + 1] >= ' ' && text[i + 1] !== '[' && text[i + 1] !== 'O') named(`alt+${text[i + 1]}`, 2);
    else if (table.has(text[i])) named(table.get(text[i])!, 1);
    else {
      run += text[i];
      i += 1;
    }
  }
  if (run) out.push(quote(run));
  return found ? out : undefined;
}

/** Text in double quotes with control characters escaped. */
function quote(text: string): string {
  return `"${escapeControlChars(text).replace(/"/g, '\\"')}"`;
}

/** `input "\r" (Enter)`, `input "ls"`: the step as a person reads it. */
export function describeInput(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  const keys = inputKeys(text);
  return keys ? `input ${quote(text)} (${keys.join(', ')})` : `input ${quote(text)}`;
}
