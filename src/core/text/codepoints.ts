/**
 * Text as Unicode code points, the form xterm's parser reads. A cast's output
 * is decoded on its reader thread (one pass over each event's string) so the
 * screen's thread does not decode UTF-8 again: what `Buffer.from(text, 'utf8')`
 * fed to xterm would give, lone surrogates included (both become U+FFFD).
 */
export function codepointsOf(text: string | readonly string[], into?: Uint32Array): Uint32Array {
  const texts = typeof text === 'string' ? [text] : text;
  let length = 0;
  for (const t of texts) length += t.length;
  const out = into && into.length >= length ? into : new Uint32Array(length);
  let n = 0;
  // Text by text, not joined first: the worker decodes a batch of events at once.
  for (const t of texts) {
    for (let i = 0; i < t.length; i++) {
      let c = t.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdfff) {
        const next = c <= 0xdbff && i + 1 < t.length ? t.charCodeAt(i + 1) : 0;
        if (next >= 0xdc00 && next <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          i++;
        } else {
          c = 0xfffd; // a pair is never cut between two texts: each is a whole JSON string
        }
      }
      out[n++] = c;
    }
  }
  return n === out.length ? out : out.subarray(0, n); // a view of `into` when it was given and long enough
}

/** Code points back to text (in slices: String.fromCodePoint takes its arguments on the stack). */
export function textOf(codepoints: Uint32Array): string {
  let text = '';
  for (let i = 0; i < codepoints.length; i += 8192) text += String.fromCodePoint(...codepoints.subarray(i, i + 8192));
  return text;
}
