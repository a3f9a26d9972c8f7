/**
 * Output the headless screen may parse later: plain text (no ESC, no C1
 * control) that arrives while the parser is between sequences. Such bytes can
 * neither change a mode nor make the screen answer a query (xterm answers only
 * control sequences, and a plain chunk cannot finish one that was never
 * started), so a recorder that nobody watches can leave them unparsed: for
 * `seq 1 200000` that is all of the output, and parsing was most of the cost.
 *
 * To know "between sequences" it follows the VT500 parser states xterm.js
 * uses, coarsely. It only ever errs towards "inside a sequence" (then the
 * bytes are parsed at once, as without deferral).
 */

const enum State {
  Ground,
  Escape,
  EscapeIntermediate,
  Csi,
  /** OSC: ends with BEL or ST. */
  Osc,
  /** DCS, SOS, PM, APC: end with ST. */
  Str,
}

const ESC = 0x1b;
const C2 = 0xc2; // first byte of U+0080..U+009F (C1 controls) in UTF-8

export class PlainOutput {
  private state = State.Ground;
  /** The last byte seen was 0xC2: a C1 control may be split across chunks. */
  private afterC2 = false;
  private chunks: Buffer[] = [];
  private bytes = 0;
  /** Seq of the last held chunk. */
  private seq = 0;

  constructor(private readonly maxBytes = 16 * 1024 * 1024) {}

  get held(): boolean {
    return this.chunks.length > 0;
  }

  /**
   * Every output chunk comes through here, in order, so the parser state stays
   * known. Holds `chunk` and returns true if it may be parsed later (and
   * `mayHold`); else returns false: the caller hands it (after anything held) to the screen.
   */
  offer(chunk: Buffer, seq: number, mayHold = true): boolean {
    if (this.state === State.Ground && isPlain(chunk, this.afterC2)) {
      if (chunk.length > 0) this.afterC2 = chunk[chunk.length - 1] === C2;
      if (!mayHold || this.bytes + chunk.length > this.maxBytes) return false;
      this.chunks.push(chunk);
      this.bytes += chunk.length;
      this.seq = seq;
      return true;
    }
    this.follow(chunk);
    return false;
  }

  /** The held bytes (in order) and the seq of the last of them; nothing is held afterwards. */
  take(): { data: Buffer; seq: number } | undefined {
    if (this.chunks.length === 0) return undefined;
    const data = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.bytes);
    this.chunks = [];
    this.bytes = 0;
    return { data, seq: this.seq };
  }

  private follow(chunk: Buffer): void {
    let from = 0;
    // ESC leads to the Escape state from anywhere: what came before the last one does not matter.
    const lastEsc = chunk.lastIndexOf(ESC);
    if (lastEsc >= 0) {
      this.state = State.Escape;
      from = lastEsc + 1;
      this.afterC2 = false;
    }
    for (let i = from; i < chunk.length; i++) {
      const b = chunk[i];
      if (this.afterC2) {
        this.afterC2 = false;
        if (b >= 0x80 && b <= 0x9f) {
          this.c1(b);
          continue;
        }
      }
      if (b === C2) {
        this.afterC2 = true;
        // C2 itself is a printable lead byte: in a sequence xterm may treat it as
        // ending it, but staying inside is the safe guess.
        continue;
      }
      this.byte(b);
    }
  }

  private byte(b: number): void {
    if (b === ESC) {
      this.state = State.Escape;
      return;
    }
    if (b === 0x18 || b === 0x1a) {
      // CAN, SUB: abort any sequence.
      this.state = State.Ground;
      return;
    }
    switch (this.state) {
      case State.Ground:
        return;
      case State.Escape:
        if (b === 0x5b) this.state = State.Csi;
        else if (b === 0x5d) this.state = State.Osc;
        else if (b === 0x50 || b === 0x58 || b === 0x5e || b === 0x5f) this.state = State.Str;
        else if (b >= 0x20 && b <= 0x2f) this.state = State.EscapeIntermediate;
        else if (b >= 0x30 && b <= 0x7e) this.state = State.Ground;
        return;
      case State.EscapeIntermediate:
        if (b >= 0x30 && b <= 0x7e) this.state = State.Ground;
        return;
      case State.Csi:
        if (b >= 0x40 && b <= 0x7e) this.state = State.Ground;
        return;
      case State.Osc:
        if (b === 0x07) this.state = State.Ground;
        return;
      case State.Str:
        return;
    }
  }

  /** A C1 control (U+0080..U+009F), as xterm.js's "anywhere" transitions treat it. */
  private c1(b: number): void {
    if (b === 0x9c) this.state = State.Ground; // ST
    else if (b === 0x9b) this.state = State.Csi;
    else if (b === 0x9d) this.state = State.Osc;
    else if (b === 0x90 || b === 0x98 || b === 0x9e || b === 0x9f) this.state = State.Str;
    // Other C1 controls end a sequence in xterm; inside a string, staying there is the safe guess.
    else if (this.state !== State.Osc && this.state !== State.Str) this.state = State.Ground;
  }
}

/** No ESC and no C1 control (0xC2 0x80..0x9F, also when the 0xC2 ended the previous chunk). */
function isPlain(chunk: Buffer, afterC2: boolean): boolean {
  if (chunk.indexOf(ESC) !== -1) return false;
  if (afterC2 && chunk.length > 0 && chunk[0] >= 0x80 && chunk[0] <= 0x9f) return false;
  for (let i = chunk.indexOf(C2); i !== -1; i = chunk.indexOf(C2, i + 1)) {
    const next = chunk[i + 1];
    if (next !== undefined && next >= 0x80 && next <= 0x9f) return false;
  }
  return true;
}
