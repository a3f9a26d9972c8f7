import { codepointsOf, textOf } from '../../core/text/codepoints.js';

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
const TAIL_TEXT = /(?:\x1b|\x1b\[[0-9;:]*|\u009b[0-9;:]*)$/;
const LONGEST_TAIL = 64;
/**
 * Whether a batch of code points may hold a REP with a count (a `b` right
 * after a parameter byte): a cast's reader thread asks, so the screen's thread
 * need not scan. A `b` after a digit in plain text only makes the screen look
 * (a false yes costs a scan, never a miss); a sequence begun in the batch
 * before is the guard's carry. The array's own search finds each `b`.
 */
export function mayHoldRepeatIn(codepoints: Uint32Array): boolean {
  for (let i = codepoints.indexOf(0x62, 1); i !== -1; i = codepoints.indexOf(0x62, i + 1)) {
    const c = codepoints[i - 1];
    if (c >= 0x30 && c <= 0x3b) return true;
  }
  return false;
}

export class RepeatGuard {
  private carry = '';
  private carryBytes = false;

  constructor(private readonly size: () => { rows: number; cols: number }) {}

  filter(data: Uint8Array | string): Uint8Array | string {
    return typeof data === 'string' ? this.filterText(data) : this.filterBytes(data);
  }

  private takeCarry(asBytes: boolean): string {
    const carry = this.carryBytes === asBytes ? this.carry : convert(this.carry, this.carryBytes);
    this.carry = '';
    return carry;
  }

  private filterText(data: string): string {
    let text = this.carry ? this.takeCarry(false) + data : data;
    const tail = TAIL_TEXT.exec(text);
    if (tail && tail[0].length < LONGEST_TAIL) {
      this.carry = tail[0];
      this.carryBytes = false;
      text = text.slice(0, tail.index);
    }
    return clampRepeats(text, REP_TEXT, this.size());
  }

  /**
   * Bytes without a regex over the whole chunk: a scan of each ESC and C1 CSI
   * (native indexOf between them) decides whether anything needs rewriting,
   * which is rare; only then does the regex run. On a 39 MB cast the regexes
   * took 0.65 s of the main thread, more than a quarter of xterm's own parse.
   */
  private filterBytes(data: Uint8Array): Uint8Array {
    let buf = this.carry ? Buffer.concat([Buffer.from(this.takeCarry(true), 'latin1'), data]) : data;
    const tail = tailStart(buf);
    if (tail !== -1) {
      this.carry = Buffer.from(buf.buffer, buf.byteOffset + tail, buf.length - tail).toString('latin1');
      this.carryBytes = true;
      buf = buf.subarray(0, tail);
    }
    const size = this.size();
    if (!hasLongRepeat(buf, size.rows * size.cols)) return buf;
    return Buffer.from(clampRepeats(Buffer.from(buf.buffer, buf.byteOffset, buf.length).toString('latin1'), REP_BYTES, size), 'latin1');
  }

  /**
   * As filterBytes, over code points (a cast's output decoded on its reader
   * thread). `repeats: false` says the data holds no REP (mayHoldRepeatIn): then
   * only a sequence begun in the previous write is looked at.
   */
  filterCodepoints(data: Uint32Array, repeats = true): Uint32Array {
    let cps = data;
    const scan = repeats || this.carry !== '';
    if (this.carry) {
      const carry = codepointsOf(this.takeCarry(false));
      cps = new Uint32Array(carry.length + data.length);
      cps.set(carry);
      cps.set(data, carry.length);
    }
    const tail = tailStart(cps, 0x9b, 0x9b);
    if (tail !== -1) {
      this.carry = textOf(cps.subarray(tail));
      this.carryBytes = false;
      cps = cps.subarray(0, tail);
    }
    const size = this.size();
    if (!scan || !hasLongRepeat(cps, size.rows * size.cols, 0x9b, 0x9b)) return cps;
    return codepointsOf(clampRepeats(textOf(cps), REP_TEXT, size));
  }
}

function clampRepeats(text: string, pattern: RegExp, { rows, cols }: { rows: number; cols: number }): string {
  const cells = rows * cols;
  return text.replace(pattern, (whole, intro: string, params: string) => {
    const n = Number(params.split(/[;:]/)[0] || '1');
    if (!(n > cells)) return whole;
    return `${intro}${cells + ((n - cells) % cols)}b`;
  });
}

const isParam = (b: number): boolean => (b >= 0x30 && b <= 0x39) || b === 0x3b || b === 0x3a;

/**
 * C1 CSI (U+009B) is two units in UTF-8 bytes (0xc2 0x9b) and one as a code
 * point: `c1Lead` is the unit that starts it, `c1Last` the one before its
 * parameters (the same unit for code points).
 */
type Units = Uint8Array | Uint32Array;

/** Where an unfinished CSI (or a lone ESC, or C1 CSI or its UTF-8 lead) starts at the end of `buf`, if under 64 units; else -1 (as TAIL_TEXT). */
function tailStart(buf: Units, c1Lead = 0xc2, c1Last = 0x9b): number {
  const end = buf.length;
  let k = end - 1;
  while (k >= 0 && end - k < LONGEST_TAIL && isParam(buf[k])) k--;
  if (k < 0 || end - k >= LONGEST_TAIL) return -1;
  const b = buf[k];
  const intro = c1Lead === c1Last ? (b === c1Last ? k : -1) : b === c1Last && buf[k - 1] === c1Lead ? k - 1 : -1;
  if (intro !== -1) return end - intro < LONGEST_TAIL ? intro : -1;
  if (b === 0x5b && buf[k - 1] === 0x1b) return end - (k - 1) < LONGEST_TAIL ? k - 1 : -1;
  if (k === end - 1 && (b === 0x1b || b === c1Lead)) return k;
  return -1;
}

/**
 * Whether a REP (`ESC [ n b`, or C1 CSI as UTF-8) asks for more than `cells`
 * repeats: each `b` found natively (memchr), and only one right after a
 * parameter byte looked at further (a count over `cells` needs one).
 */
function hasLongRepeat(units: Units, cells: number, c1Lead = 0xc2, c1Last = 0x9b): boolean {
  const buf = units instanceof Uint32Array || Buffer.isBuffer(units) ? units : Buffer.from(units.buffer, units.byteOffset, units.length);
  for (let i = buf.indexOf(0x62); i !== -1; i = buf.indexOf(0x62, i + 1)) {
    if (!isParam(buf[i - 1])) continue;
    let j = i - 1;
    while (j >= 0 && isParam(buf[j])) j--;
    const c1 = buf[j] === c1Last && (c1Lead === c1Last || buf[j - 1] === c1Lead);
    if (!((buf[j] === 0x5b && buf[j - 1] === 0x1b) || c1)) continue;
    let n = 0;
    for (let k = j + 1; k < i && buf[k] !== 0x3b && buf[k] !== 0x3a; k++) n = n * 10 + (buf[k] - 0x30);
    if (n > cells) return true;
  }
  return false;
}

function convert(carry: string, fromBytes: boolean): string {
  return fromBytes ? Buffer.from(carry, 'latin1').toString('utf8') : Buffer.from(carry, 'utf8').toString('latin1');
}
