/**
 * Turns a byte stream into asciicast event strings without mangling it.
 * A multi-byte character split across chunks is held back and joined with the
 * next chunk. Bytes that are not valid UTF-8 can't be carried by a JSON
 * string, so such a piece is returned twice: as text with U+FFFD (what any
 * player shows) and as the exact bytes (which tapedeck stores next to it in a
 * "tapedeck.bytes" event and restores on read).
 */
export interface Utf8Piece {
  text: string;
  /** Present only when the bytes are not valid UTF-8. */
  exact?: Buffer;
}

// ignoreBOM: a byte-order mark the program wrote is output like any other bytes, never dropped.
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lossy = new TextDecoder('utf-8', { ignoreBOM: true });

/** Length of an incomplete UTF-8 sequence at the end of `buf` (0 if it ends on a boundary). */
function incompleteTail(buf: Buffer): number {
  for (let back = 1; back <= Math.min(3, buf.length); back++) {
    const b = buf[buf.length - back];
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const need = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

export function decodePiece(bytes: Buffer): Utf8Piece {
  try {
    return { text: strict.decode(bytes) };
  } catch {
    return { text: lossy.decode(bytes), exact: Buffer.from(bytes) };
  }
}

const EMPTY = Buffer.alloc(0);

export class Utf8Chunker {
  private held: Buffer = EMPTY;

  push(chunk: Buffer): Utf8Piece | undefined {
    const body = this.take(chunk);
    return body ? decodePiece(body) : undefined;
  }

  /** The bytes push() would decode: the held bytes and `chunk`, up to an incomplete sequence at its end (held). */
  take(chunk: Buffer): Buffer | undefined {
    const buf = this.held.length ? Buffer.concat([this.held, chunk]) : chunk;
    const tail = incompleteTail(buf);
    this.held = tail ? Buffer.from(buf.subarray(buf.length - tail)) : EMPTY;
    const body = tail ? buf.subarray(0, buf.length - tail) : buf;
    return body.length ? body : undefined;
  }

  /** Whatever is still held at end of stream (an incomplete, hence invalid, sequence). */
  flush(): Utf8Piece | undefined {
    const rest = this.held;
    this.held = EMPTY;
    return rest.length ? decodePiece(rest) : undefined;
  }
}
