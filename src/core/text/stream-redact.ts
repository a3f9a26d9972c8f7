import { placeholderFor, restore, storedForms } from './redact.js';

/**
 * Redaction of a byte stream (a terminal's output and input) as it is written:
 * every spelling of each named variable's value becomes its placeholder. Works
 * on the latin1 view of the bytes, so UTF-8 split across chunks is never
 * decoded half-way. With `carry`, the end of a chunk that could be the start of
 * a secret is held until the next chunk (or flush), so a value split across
 * chunks is still caught; the recorder uses that. A live screen cannot wait
 * for bytes that may never come, so replay redacts within chunks only.
 */
export class StreamRedactor {
  private readonly forms: Array<{ form: string; placeholder: string }>;
  private readonly longest: number;
  private held = '';

  constructor(names: readonly string[], env: NodeJS.ProcessEnv, private readonly carry: boolean) {
    const forms: Array<{ form: string; placeholder: string }> = [];
    for (const name of names) {
      const value = env[name];
      if (!value) continue;
      for (const f of storedForms(value)) forms.push({ form: Buffer.from(f, 'utf8').toString('latin1'), placeholder: placeholderFor(name) });
    }
    this.forms = forms.sort((a, b) => b.form.length - a.form.length);
    this.longest = this.forms[0]?.form.length ?? 0;
  }

  get active(): boolean {
    return this.forms.length > 0;
  }

  push(chunk: Buffer): Buffer {
    if (!this.active) return chunk;
    let text = this.held + chunk.toString('latin1');
    this.held = '';
    for (const { form, placeholder } of this.forms) if (text.includes(form)) text = text.split(form).join(placeholder);
    if (this.carry) {
      const keep = this.partialTail(text);
      if (keep > 0) {
        this.held = text.slice(text.length - keep);
        text = text.slice(0, text.length - keep);
      }
    }
    return Buffer.from(text, 'latin1');
  }

  /** What is held back, at the end of the stream or before another kind of event. */
  flush(): Buffer {
    const out = Buffer.from(this.held, 'latin1');
    this.held = '';
    return out;
  }

  /** Length of the longest end of `text` that begins some secret form. */
  private partialTail(text: string): number {
    for (let n = Math.min(this.longest - 1, text.length); n > 0; n--) {
      const tail = text.slice(text.length - n);
      if (this.forms.some((f) => f.form.startsWith(tail))) return n;
    }
    return 0;
  }
}

/** Puts secret values back into bytes with placeholders (replayed input), UTF-8 intact. */
export function restoreBytes(bytes: Buffer, env: NodeJS.ProcessEnv, where?: { file: string; line?: number }): Buffer {
  const text = bytes.toString('latin1');
  if (!text.includes('{{tapedeck.env.')) return bytes;
  const asBytes = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === undefined ? undefined : Buffer.from(v, 'utf8').toString('latin1')]));
  return Buffer.from(restore(text, asBytes, where), 'latin1');
}
