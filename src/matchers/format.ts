/** Shows control characters in messages instead of letting them act on the reader's terminal. */
export function escapeControl(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (ch) => {
    if (ch === '\x1b') return '\\e';
    if (ch === '\r') return '\\r';
    if (ch === '\t') return '\\t';
    return `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}

/** A screen framed for a failure message: numbered rows, control characters escaped. */
export function frameScreen(text: string, title = 'screen'): string {
  const lines = text.split('\n');
  const width = String(lines.length).length;
  return [`--- ${title} ---`, ...lines.map((l, i) => `${String(i).padStart(width)} │${escapeControl(l)}`), '---'].join('\n');
}

export function describePattern(p: string | RegExp): string {
  return p instanceof RegExp ? String(p) : JSON.stringify(escapeControl(p)).replace(/\\\\/g, '\\');
}
