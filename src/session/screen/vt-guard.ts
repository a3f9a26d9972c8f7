/**
 * Bounds on what one control sequence may cost the headless screen. xterm.js
 * honours REP (`CSI Ps b`, repeat the last character) with any count: 30 bytes
 * of `A\e[999999999b` kept it busy for 23 s and 3.9 GB. A count past one
 * screenful is cut to a screenful plus the same remainder of a line, which
 * leaves the visible screen and the cursor column as the full count would.
 * A sequence split across writes is held back until it is complete (xterm
 * would not act on it before then either, so reads see the same screen).
 */
const REP_BYTES = /(\x1b\[|\xc2\x9b)([0-9;:]*)b/g;
const REP_TEXT = /(\x1b\[|\u009b)([0-9;:]*)b/g;
const TAIL_BYTES = /(?:\x1b|\x1b\[[0-9;:]*|\xc2|\xc2\x9b[0-9;:]*)$/;
const TAIL_TEXT = /(?:\x1b|\x1b\[[0-9;:]*|\u009b[0-9;:]*)$/;

export class RepeatGuard {
  private carry = '';
  private carryBytes = false;

  constructor(private readonly size: () => { rows: number; cols: number }) {}

  filter(data: Uint8Array | string): Uint8Array | string {
    const bytes = typeof data !== 'string';
    if (bytes && !this.carry && !mayNeed(data as Uint8Array)) return data;
    let text = bytes ? Buffer.from(data as Uint8Array).toString('latin1') : (data as string);
    if (this.carry) {
      text = (this.carryBytes === bytes ? this.carry : convert(this.carry, this.carryBytes)) + text;
      this.carry = '';
    }
    const tail = (bytes ? TAIL_BYTES : TAIL_TEXT).exec(text);
    if (tail && tail[0].length < 64) {
      this.carry = tail[0];
      this.carryBytes = bytes;
      text = text.slice(0, tail.index);
    }
    const { rows, cols } = this.size();
    const cells = rows * cols;
    text = text.replace(bytes ? REP_BYTES : REP_TEXT, (whole, intro: string, params: string) => {
      const n = Number(params.split(/[;:]/)[0] || '1');
      if (!(n > cells)) return whole;
      return `${intro}${cells + ((n - cells) % cols)}b`;
    });
    return bytes ? Buffer.from(text, 'latin1') : text;
  }
}

function mayNeed(buf: Uint8Array): boolean {
  return buf.indexOf(0x1b) !== -1 || buf.indexOf(0x9b) !== -1 || buf[buf.length - 1] === 0xc2;
}

function convert(carry: string, fromBytes: boolean): string {
  return fromBytes ? Buffer.from(carry, 'latin1').toString('utf8') : Buffer.from(carry, 'utf8').toString('latin1');
}
