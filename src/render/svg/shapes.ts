/**
 * Characters the SVG draws as shapes instead of text, so lines join across
 * cells whatever the viewer's font rasteriser does: the light and heavy box
 * drawing lines, the block elements (U+2580–U+259F) and the Powerline
 * separators (U+E0B0–U+E0BF, which no pinned font has).
 * Each returns path data in pixels for a cell at (x, y) of size w x h.
 */

/** Up, right, down, left: 0 none, 1 light, 2 heavy. */
const BOX: Record<number, string> = {
  0x2500: '0101', 0x2501: '0202', 0x2502: '1010', 0x2503: '2020',
  0x250c: '0110', 0x250d: '0210', 0x250e: '0120', 0x250f: '0220',
  0x2510: '0011', 0x2511: '0012', 0x2512: '0021', 0x2513: '0022',
  0x2514: '1100', 0x2515: '1200', 0x2516: '2100', 0x2517: '2200',
  0x2518: '1001', 0x2519: '1002', 0x251a: '2001', 0x251b: '2002',
  0x251c: '1110', 0x251d: '1210', 0x251e: '2110', 0x251f: '1120', 0x2520: '2120', 0x2521: '2210', 0x2522: '1220', 0x2523: '2220',
  0x2524: '1011', 0x2525: '1012', 0x2526: '2011', 0x2527: '1021', 0x2528: '2021', 0x2529: '2012', 0x252a: '1022', 0x252b: '2022',
  0x252c: '0111', 0x252d: '0112', 0x252e: '0211', 0x252f: '0212', 0x2530: '0121', 0x2531: '0122', 0x2532: '0221', 0x2533: '0222',
  0x2534: '1101', 0x2535: '1102', 0x2536: '1201', 0x2537: '1202', 0x2538: '2101', 0x2539: '2102', 0x253a: '2201', 0x253b: '2202',
  0x253c: '1111', 0x253d: '1112', 0x253e: '1211', 0x253f: '1212', 0x2540: '2111', 0x2541: '1121', 0x2542: '2121', 0x2543: '2112',
  0x2544: '2211', 0x2545: '1122', 0x2546: '1221', 0x2547: '2212', 0x2548: '1222', 0x2549: '2122', 0x254a: '2221', 0x254b: '2222',
  0x2574: '0001', 0x2575: '1000', 0x2576: '0100', 0x2577: '0010', 0x2578: '0002', 0x2579: '2000', 0x257a: '0200', 0x257b: '0020',
  0x257c: '0201', 0x257d: '1020', 0x257e: '0102', 0x257f: '2010',
};

export interface Shape {
  /** Path data to fill. */
  d: string;
  /** Fill opacity (the shade characters), 1 otherwise. */
  opacity: number;
  /** Stroked (the thin Powerline separators) rather than filled. */
  stroke?: boolean;
}

const r = (x: number, y: number, w: number, h: number) => (w > 0 && h > 0 ? `M${fmt(x)} ${fmt(y)}h${fmt(w)}v${fmt(h)}h${fmt(-w)}Z` : '');

export function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0+$/, '').replace(/\.$/, '');
}

/** The shape of a one-character cell, or null to draw it as text. */
export function shapeOf(ch: string, x: number, y: number, w: number, h: number): Shape | null {
  if (ch.length !== 1) return null;
  const cp = ch.charCodeAt(0);
  const box = BOX[cp];
  if (box) return { d: boxLines(box, x, y, w, h), opacity: 1 };
  if (cp >= 0x2580 && cp <= 0x259f) return block(cp, x, y, w, h);
  if (cp >= 0xe0b0 && cp <= 0xe0bf) return powerline(cp, x, y, w, h);
  return null;
}

function boxLines(arms: string, x: number, y: number, w: number, h: number): string {
  const light = Math.max(1, Math.floor(w / 8));
  const t = [0, light, light * 2];
  const [u, rt, d, l] = [...arms].map((a) => t[Number(a)]);
  const left = (th: number) => x + Math.floor((w - th) / 2); // left edge of a vertical stroke
  const top = (th: number) => y + Math.floor((h - th) / 2); // top edge of a horizontal stroke
  const tv = Math.max(u, d);
  const th = Math.max(l, rt);
  let out = '';
  if (l) out += r(x, top(l), (tv ? left(tv) + tv : x + Math.ceil(w / 2)) - x, l);
  if (rt) {
    const from = tv ? left(tv) : x + Math.floor(w / 2);
    out += r(from, top(rt), x + w - from, rt);
  }
  if (u) out += r(left(u), y, u, (th ? top(th) + th : y + Math.ceil(h / 2)) - y);
  if (d) {
    const from = th ? top(th) : y + Math.floor(h / 2);
    out += r(left(d), from, d, y + h - from);
  }
  return out;
}

function block(cp: number, x: number, y: number, w: number, h: number): Shape {
  const eighthH = (k: number) => Math.round((h * k) / 8);
  const eighthW = (k: number) => Math.round((w * k) / 8);
  const hw = Math.round(w / 2);
  const hh = Math.round(h / 2);
  const q = { ul: r(x, y, hw, hh), ur: r(x + hw, y, w - hw, hh), ll: r(x, y + hh, hw, h - hh), lr: r(x + hw, y + hh, w - hw, h - hh) };
  if (cp === 0x2580) return { d: r(x, y, w, hh), opacity: 1 };
  if (cp <= 0x2588) {
    const k = cp - 0x2580;
    return { d: r(x, y + h - eighthH(k), w, eighthH(k)), opacity: 1 };
  }
  if (cp <= 0x258f) return { d: r(x, y, eighthW(0x2590 - cp), h), opacity: 1 };
  if (cp === 0x2590) return { d: r(x + hw, y, w - hw, h), opacity: 1 };
  if (cp <= 0x2593) return { d: r(x, y, w, h), opacity: (cp - 0x2590) / 4 };
  if (cp === 0x2594) return { d: r(x, y, w, eighthH(1)), opacity: 1 };
  if (cp === 0x2595) return { d: r(x + w - eighthW(1), y, eighthW(1), h), opacity: 1 };
  const quads: Record<number, (keyof typeof q)[]> = {
    0x2596: ['ll'], 0x2597: ['lr'], 0x2598: ['ul'], 0x2599: ['ul', 'll', 'lr'], 0x259a: ['ul', 'lr'],
    0x259b: ['ul', 'ur', 'll'], 0x259c: ['ul', 'ur', 'lr'], 0x259d: ['ur'], 0x259e: ['ur', 'll'], 0x259f: ['ur', 'll', 'lr'],
  };
  return { d: quads[cp].map((k) => q[k]).join(''), opacity: 1 };
}

function powerline(cp: number, x: number, y: number, w: number, h: number): Shape | null {
  const X = (f: number) => fmt(x + f * w);
  const Y = (f: number) => fmt(y + f * h);
  const tri = (a: [number, number], b: [number, number], c: [number, number], stroke: boolean): Shape => ({
    d: `M${X(a[0])} ${Y(a[1])}L${X(b[0])} ${Y(b[1])}L${X(c[0])} ${Y(c[1])}${stroke ? '' : 'Z'}`,
    opacity: 1,
    stroke,
  });
  const line = (a: [number, number], b: [number, number]): Shape => ({ d: `M${X(a[0])} ${Y(a[1])}L${X(b[0])} ${Y(b[1])}`, opacity: 1, stroke: true });
  const arc = (fromRight: boolean, stroke: boolean): Shape => {
    const sx = fromRight ? 1 : 0;
    return { d: `M${X(sx)} ${Y(0)}A${fmt(w)} ${fmt(h / 2)} 0 0 ${fromRight ? 0 : 1} ${X(sx)} ${Y(1)}${stroke ? '' : 'Z'}`, opacity: 1, stroke };
  };
  switch (cp) {
    case 0xe0b0: return tri([0, 0], [1, 0.5], [0, 1], false);
    case 0xe0b1: return tri([0, 0], [1, 0.5], [0, 1], true);
    case 0xe0b2: return tri([1, 0], [0, 0.5], [1, 1], false);
    case 0xe0b3: return tri([1, 0], [0, 0.5], [1, 1], true);
    case 0xe0b4: return arc(false, false);
    case 0xe0b5: return arc(false, true);
    case 0xe0b6: return arc(true, false);
    case 0xe0b7: return arc(true, true);
    case 0xe0b8: return tri([0, 0], [1, 1], [0, 1], false);
    case 0xe0b9: return line([0, 0], [1, 1]);
    case 0xe0ba: return tri([1, 0], [1, 1], [0, 1], false);
    case 0xe0bb: return line([1, 0], [0, 1]);
    case 0xe0bc: return tri([0, 0], [1, 0], [0, 1], false);
    case 0xe0bd: return line([1, 0], [0, 1]);
    case 0xe0be: return tri([0, 0], [1, 0], [1, 1], false);
    case 0xe0bf: return line([0, 0], [1, 1]);
    default: return null;
  }
}
