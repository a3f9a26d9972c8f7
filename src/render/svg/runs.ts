import { fmt } from './shapes.js';

const escapeText = (s: string) => s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));

/**
 * The text of one style run: every glyph with its cell's centre as x (with
 * text-anchor middle each positioned glyph is its own chunk, centred in its
 * cell). A cell of several code points (combining marks, ZWJ sequences,
 * astral characters) gets a tspan of its own with one x, so it stays one
 * shaped cluster and no viewer's way of counting characters can shift the rest.
 */
export class TextRun {
  private readonly items: { x: number; text: string }[] = [];

  constructor(
    readonly key: string,
    private readonly fg: string,
    private readonly dim: boolean,
    private readonly bold: boolean,
    private readonly italic: boolean,
  ) {}

  add(x: number, text: string): void {
    this.items.push({ x, text });
  }

  toSvg(y: number, defaultFg: string): string {
    const cls = this.bold && this.italic ? ' class="b i"' : this.bold ? ' class="b"' : this.italic ? ' class="i"' : '';
    const fill = this.fg === defaultFg.toLowerCase() ? '' : ` fill="${this.fg}"`;
    const dim = this.dim ? ' fill-opacity="0.5"' : '';
    const attrs = `y="${fmt(y)}"${fill}${dim}${cls}`;
    if (this.items.every((i) => i.text.length === 1)) {
      return `<text x="${this.items.map((i) => fmt(i.x)).join(' ')}" ${attrs}>${escapeText(this.items.map((i) => i.text).join(''))}</text>`;
    }
    let body = '';
    let simple: { x: number; text: string }[] = [];
    const flush = () => {
      if (simple.length) body += `<tspan x="${simple.map((i) => fmt(i.x)).join(' ')}">${escapeText(simple.map((i) => i.text).join(''))}</tspan>`;
      simple = [];
    };
    for (const item of this.items) {
      if (item.text.length === 1) {
        simple.push(item);
        continue;
      }
      flush();
      body += `<tspan x="${fmt(item.x)}">${escapeText(item.text)}</tspan>`;
    }
    flush();
    return `<text ${attrs}>${body}</text>`;
  }
}

interface Look {
  underline: { style: string; colour: string } | null;
  strike: string | null;
  overline: string | null;
  dim: boolean;
}

type Kind = 'underline' | 'strike' | 'overline';
interface Run {
  kind: Kind;
  style: string;
  colour: string;
  dim: boolean;
  row: number;
  from: number;
  to: number;
}

/** Underlines (single, double, curly, dotted, dashed), strikethrough and overline, merged per run of cells. */
export class Decorations {
  private readonly done: Run[] = [];
  private readonly open = new Map<Kind, Run>();

  cell(row: number, col: number, span: number, look: Look): void {
    const wanted: [Kind, string, string | null][] = [
      ['underline', look.underline?.style ?? '', look.underline?.colour ?? null],
      ['strike', 'single', look.strike],
      ['overline', 'single', look.overline],
    ];
    for (const [kind, style, colour] of wanted) {
      const run = this.open.get(kind);
      if (run && colour && run.row === row && run.to === col && run.style === style && run.colour === colour && run.dim === look.dim) {
        run.to = col + span;
        continue;
      }
      if (run) this.done.push(run);
      if (colour) this.open.set(kind, { kind, style, colour, dim: look.dim, row, from: col, to: col + span });
      else this.open.delete(kind);
    }
  }

  toSvg(padding: { x: number; y: number }, cell: { width: number; height: number }, baseline: number): string[] {
    for (const run of this.open.values()) this.done.push(run);
    this.open.clear();
    const t = Math.max(1, Math.round(cell.height / 18));
    return this.done.map((run) => {
      const x = padding.x + run.from * cell.width;
      const w = (run.to - run.from) * cell.width;
      const top = padding.y + run.row * cell.height;
      const op = run.dim ? ' fill-opacity="0.5"' : '';
      const sop = run.dim ? ' stroke-opacity="0.5"' : '';
      const rect = (y: number) => `<rect x="${x}" y="${y}" width="${w}" height="${t}" fill="${run.colour}"${op}/>`;
      if (run.kind === 'overline') return rect(top);
      if (run.kind === 'strike') return rect(top + Math.round(cell.height / 2));
      const y = Math.min(top + Math.round(baseline) + 1, top + cell.height - t);
      const mid = y + t / 2;
      switch (run.style) {
        case 'double':
          return rect(y) + rect(Math.min(y + 2 * t, top + cell.height - t));
        case 'curly': {
          const half = cell.width / 2;
          let d = `M${x} ${fmt(mid)}`;
          for (let i = 0; i < (run.to - run.from) * 2; i++) d += `q${fmt(half / 2)} ${i % 2 ? t : -t} ${fmt(half)} 0`;
          return `<path d="${d}" fill="none" stroke="${run.colour}" stroke-width="${t}"${sop}/>`;
        }
        case 'dotted':
        case 'dashed':
          return `<path d="M${x} ${fmt(mid)}h${w}" stroke="${run.colour}" stroke-width="${t}" stroke-dasharray="${run.style === 'dotted' ? `${t} ${t}` : `${3 * t} ${2 * t}`}"${sop}/>`;
        default:
          return rect(y);
      }
    });
  }
}
