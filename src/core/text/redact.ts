import { TapedeckError } from '../diagnostics/errors.js';

/**
 * Secrets in tapes: a value taken from an environment variable is stored as a
 * placeholder naming the variable, and put back from the environment when the
 * tape is replayed or served, so tapes can be checked in.
 */
const PLACEHOLDER = /\{\{tapedeck\.env\.([A-Za-z_][A-Za-z0-9_]*)(?:\|(json[1-4]s?[uU]?))?\}\}/g;

/**
 * `spelling` names how the value was written when that differs from the value
 * itself (a value with `"`, `\\` or non-ASCII inside JSON text): `json2` is
 * JSON-escaped twice (JSON inside a JSON string, as a tool result carrying
 * `JSON.stringify(process.env)` is on the wire), `s` with `\/`, `u`/`U` with
 * `\uXXXX` escapes; restore writes it back the same way.
 */
export function placeholderFor(name: string, spelling?: string): string {
  return spelling ? `{{tapedeck.env.${name}|${spelling}}}` : `{{tapedeck.env.${name}}}`;
}

/** Replaces every spelling of each named variable's value (as is, and JSON-escaped one to four times). */
export function redact(text: string, names: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  let out = text;
  // Longest spellings first, so a secret containing another (or a deeper escape of it) is replaced whole.
  const forms: Array<{ form: string; placeholder: string }> = [];
  for (const name of names) {
    const value = env[name];
    if (typeof value !== 'string' || value.length === 0) continue;
    for (const { form, spelling } of spellings(value)) forms.push({ form, placeholder: placeholderFor(name, spelling) });
  }
  forms.sort((a, b) => b.form.length - a.form.length);
  for (const { form, placeholder } of forms) if (out.includes(form)) out = out.split(form).join(placeholder);
  return out;
}

const escapeOnce = (s: string) => JSON.stringify(s).slice(1, -1);
const slashes = (s: string) => s.replace(/\//g, '\\/');
/** JSON escaping with non-ASCII and HTML-sensitive characters as \uXXXX (Go's encoding/json), in either case. */
function escapeUnicode(s: string, upper: boolean): string {
  const u = s.replace(/[\\]/g, '\\\\').replace(/[^\x20-\x7e]|[<>&'"]/g, (c) => {
    const short = JSON.stringify(c).slice(1, -1);
    if (c === '"' || (short.length === 2 && c !== '<' && c !== '>' && c !== '&' && c !== "'")) return short; // \" \n \t stay short
    const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  });
  return u;
}

/** The value as `spelling` writes it (restore's inverse of redact). */
export function spell(value: string, spelling: string | undefined): string {
  if (!spelling) return value;
  const m = /^json([1-4])(s?)([uU]?)$/.exec(spelling)!;
  let out = value;
  for (let level = Number(m[1]); level > 1; level--) out = escapeOnce(out);
  out = m[3] ? escapeUnicode(out, m[3] === 'U') : escapeOnce(out);
  return m[2] ? slashes(out) : out;
}

/** Every spelling of a value a JSON writer may have produced, with the tag restore needs (none when it is the value itself). */
export function spellings(value: string): Array<{ form: string; spelling?: string }> {
  const out = new Map<string, string | undefined>([[value, undefined]]);
  for (let level = 1; level <= 4; level++) {
    for (const variant of ['', 's', 'u', 'U', 'su', 'sU']) {
      const tag = `json${level}${variant}`;
      const form = spell(value, tag);
      if (!out.has(form)) out.set(form, tag);
    }
  }
  return [...out].map(([form, spelling]) => ({ form, spelling })).sort((a, b) => b.form.length - a.form.length);
}

/**
 * The ways a JSON writer may have spelled a value: as is, JSON-escaped (once or
 * several times: JSON inside JSON strings), with `/` as `\/` (PHP, some Java),
 * and with non-ASCII and HTML-sensitive characters as `\uXXXX` in either case
 * (Go's encoding/json), alone or together.
 */
export function storedForms(value: string): string[] {
  return spellings(value).map((s) => s.form);
}

/** The variable names a text's placeholders refer to. */
export function placeholdersIn(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]))];
}

/** Puts real values back; a placeholder whose variable is unset is an error naming it. */
export function restore(text: string, env: NodeJS.ProcessEnv = process.env, where?: { file: string; line?: number }): string {
  if (!text.includes('{{tapedeck.env.')) return text;
  return text.replace(PLACEHOLDER, (_m, name: string, spelling: string | undefined) => {
    const value = env[name];
    if (value === undefined) {
      throw new TapedeckError('TD2004', `the tape has a redacted value for ${name}, but ${name} is not set in the environment`, {
        location: where,
      });
    }
    return spell(value, spelling);
  });
}
