import { TapedeckError } from '../diagnostics/errors.js';

/**
 * Secrets in tapes: a value taken from an environment variable is stored as a
 * placeholder naming the variable, and put back from the environment when the
 * tape is replayed or served, so tapes can be checked in.
 */
const PLACEHOLDER = /\{\{tapedeck\.env\.([A-Za-z_][A-Za-z0-9_]*)\}\}/g;

export function placeholderFor(name: string): string {
  return `{{tapedeck.env.${name}}}`;
}

/** Replaces every occurrence of each named variable's value (raw and JSON-escaped). */
export function redact(text: string, names: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  let out = text;
  // Longest values first, so a secret containing another is replaced whole.
  const values = names
    .map((name) => ({ name, value: env[name] }))
    .filter((v): v is { name: string; value: string } => typeof v.value === 'string' && v.value.length > 0)
    .sort((a, b) => b.value.length - a.value.length);
  for (const { name, value } of values) {
    for (const form of storedForms(value)) out = out.split(form).join(placeholderFor(name));
  }
  return out;
}

/**
 * The ways a JSON writer may have spelled a value: as is, JSON-escaped, with
 * `/` as `\/` (PHP, some Java), and with non-ASCII and HTML-sensitive characters
 * as `\uXXXX` in either case (Go's encoding/json), alone or together.
 */
export function storedForms(value: string): string[] {
  const escaped = JSON.stringify(value).slice(1, -1);
  const slashes = (s: string) => s.replace(/\//g, '\\/');
  const unicode = (s: string, upper: boolean) =>
    s.replace(/[^\x20-\x7e]|[<>&'"]/g, (c) => {
      if (c === '"') return '\\u0022';
      const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
      return `\\u${upper ? hex.toUpperCase() : hex}`;
    });
  // Escapes JSON.stringify already made (\n, \") stay; other characters get \u forms.
  const uni = (upper: boolean) => unicode(value.replace(/[\\]/g, '\\\\'), upper).replace(/\\u0022/g, '\\"');
  const forms = [value, escaped, slashes(escaped), uni(false), uni(true), slashes(uni(false)), slashes(uni(true))];
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

/** The variable names a text's placeholders refer to. */
export function placeholdersIn(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]))];
}

/** Puts real values back; a placeholder whose variable is unset is an error naming it. */
export function restore(text: string, env: NodeJS.ProcessEnv = process.env, where?: { file: string; line?: number }): string {
  if (!text.includes('{{tapedeck.env.')) return text;
  return text.replace(PLACEHOLDER, (_m, name: string) => {
    const value = env[name];
    if (value === undefined) {
      throw new TapedeckError('TD2004', `the tape has a redacted value for ${name}, but ${name} is not set in the environment`, {
        location: where,
      });
    }
    return value;
  });
}
