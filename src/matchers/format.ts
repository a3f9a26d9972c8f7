import { escapeControl } from '../core/escape.js';

export { escapeControl };

/** A screen framed for a failure message: numbered rows, control characters escaped. */
export function frameScreen(text: string, title = 'screen'): string {
  const lines = text.split('\n');
  const width = String(lines.length).length;
  return [`--- ${title} ---`, ...lines.map((l, i) => `${String(i).padStart(width)} │${escapeControl(l)}`), '---'].join('\n');
}

export function describePattern(p: string | RegExp): string {
  return p instanceof RegExp ? String(p) : JSON.stringify(escapeControl(p)).replace(/\\\\/g, '\\');
}
