/**
 * Shows control characters in messages instead of letting them act on the
 * reader's terminal: ESC as \e, CR as \r, tab as \t, others as \xNN. Newlines
 * stay line breaks unless `newlines: 'escape'` (for one-line descriptions).
 */
export function escapeControl(text: string, options: { newlines?: 'keep' | 'escape' } = {}): string {
  const pattern = options.newlines === 'escape' ? /[\x00-\x1f\x7f]/g : /[\x00-\x09\x0b-\x1f\x7f]/g;
  return text.replace(pattern, (ch) => {
    if (ch === '\x1b') return '\\e';
    if (ch === '\r') return '\\r';
    if (ch === '\n') return '\\n';
    if (ch === '\t') return '\\t';
    return `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}
