import { optionalPackage } from '../../core/lazy-package.js';

// Loaded with the first screen, like xterm itself.
const unicode11 = optionalPackage<typeof import('@xterm/addon-unicode11')>('@xterm/addon-unicode11');

/**
 * Cell widths that match a real terminal on Linux.
 *
 * xterm.js defaults to Unicode 6 widths (😀 one cell), while xterm, tmux and
 * the programs themselves (through glibc's wcwidth) give it two: every line
 * with an emoji came out shifted. @xterm/addon-unicode11 fixes most of that;
 * the rest (emoji from Unicode 12–15 such as 🥲 🫠, a few zero-width marks)
 * is this table: every code point where glibc 2.36 (Debian 12, Unicode 15)
 * wcwidth differs from the addon, as [first, last, width] triples. Generated
 * by comparing the two over all code points (test/terminal/widths.test.ts
 * checks every code point against the machine's glibc and names any that
 * differ). The addon's grapheme sibling (@xterm/addon-unicode-graphemes
 * 0.4.0) was not used: it clusters ZWJ sequences, which tmux 3.3a and glibc
 * do not (👍🏽 is four cells in both), and gave 😀 one cell under headless 6.
 */
export const GLIBC_OVERRIDES: readonly number[] = [
  0x600, 0x605, 1, 0x6dd, 0x6dd, 1, 0x70f, 0x70f, 1, 0x898, 0x89f, 0, 0x8ca, 0x8d2, 0, 0x8e2, 0x8e2, 1,
  0xb55, 0xb55, 0, 0xc3c, 0xc3c, 0, 0xd81, 0xd81, 0, 0x1734, 0x1734, 1, 0x180f, 0x180f, 0, 0x1abf, 0x1ace, 0,
  0x1dfa, 0x1dfa, 0, 0x31bb, 0x31bf, 2, 0x3248, 0x324f, 2, 0x4dc0, 0x4dff, 2, 0xa82c, 0xa82c, 0, 0xd7b0, 0xd7c6, 0,
  0xd7cb, 0xd7fb, 0, 0x10eab, 0x10eac, 0, 0x10f82, 0x10f85, 0, 0x11070, 0x11070, 0, 0x11073, 0x11074, 0,
  0x110bd, 0x110bd, 1, 0x110c2, 0x110c2, 0, 0x110cd, 0x110cd, 1, 0x111cf, 0x111cf, 0, 0x1193b, 0x1193c, 0,
  0x1193e, 0x1193e, 0, 0x11943, 0x11943, 0, 0x16fe4, 0x16fe4, 0, 0x16ff0, 0x16ff1, 2, 0x18af3, 0x18cd5, 2,
  0x18d00, 0x18d08, 2, 0x1aff0, 0x1aff3, 2, 0x1aff5, 0x1affb, 2, 0x1affd, 0x1affe, 2, 0x1b11f, 0x1b122, 2,
  0x1cf00, 0x1cf2d, 0, 0x1cf30, 0x1cf46, 0, 0x1e2ae, 0x1e2ae, 0, 0x1f6d6, 0x1f6d7, 2, 0x1f6dd, 0x1f6df, 2,
  0x1f6fb, 0x1f6fc, 2, 0x1f7f0, 0x1f7f0, 2, 0x1f90c, 0x1f90c, 2, 0x1f93b, 0x1f93b, 1, 0x1f946, 0x1f946, 1,
  0x1f972, 0x1f972, 2, 0x1f977, 0x1f979, 2, 0x1f9a3, 0x1f9a4, 2, 0x1f9ab, 0x1f9ad, 2, 0x1f9cb, 0x1f9cc, 2,
  0x1fa74, 0x1fa74, 2, 0x1fa7b, 0x1fa7c, 2, 0x1fa83, 0x1fa86, 2, 0x1fa96, 0x1faac, 2, 0x1fab0, 0x1faba, 2,
  0x1fac0, 0x1fac5, 2, 0x1fad0, 0x1fad9, 2, 0x1fae0, 0x1fae7, 2, 0x1faf0, 0x1faf6, 2,
];

/** The name the provider is registered under (xterm's `unicode.activeVersion`). */
export const WIDTHS_VERSION = 'tapedeck-glibc';

interface WidthSource {
  wcwidth(codepoint: number): number;
}

interface UnicodeApi {
  register(provider: unknown): void;
  activeVersion: string;
}

/**
 * The xterm.js Unicode version provider. Self-contained on purpose (no
 * imports, no outer names): the screenshot page gets it as source text
 * (`createWidthProvider.toString()`) so both sides measure alike.
 * charProperties packs (kind << 3 | width << 1 | join) like xterm's
 * UnicodeService.createPropertyValue, and joins zero-width marks onto the
 * previous cell as the Unicode 11 provider does.
 */
export function createWidthProvider(base: WidthSource, overrides: readonly number[]) {
  const wcwidth = (cp: number): number => {
    let lo = 0;
    let hi = overrides.length / 3 - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (cp < overrides[mid * 3]) hi = mid - 1;
      else if (cp > overrides[mid * 3 + 1]) lo = mid + 1;
      else return overrides[mid * 3 + 2];
    }
    return base.wcwidth(cp);
  };
  return {
    version: 'tapedeck-glibc',
    wcwidth,
    charProperties(cp: number, preceding: number): number {
      let width = cp < 32 ? 0 : cp < 127 ? 1 : wcwidth(cp);
      let join = width === 0 && preceding !== 0;
      if (join) {
        const before = (preceding >> 1) & 3;
        if (before === 0) join = false;
        else if (before > width) width = before;
      }
      return ((width & 3) << 1) | (join ? 1 : 0);
    },
  };
}

/** The Unicode 11 addon's provider, taken through its public activate() so it can be wrapped. */
export function unicode11Provider(Addon: new () => { activate(term: unknown): void }): WidthSource {
  let provider: WidthSource | undefined;
  new Addon().activate({ unicode: { register: (p: WidthSource) => (provider = p) } });
  if (!provider) throw new Error('@xterm/addon-unicode11 registered no provider');
  return provider;
}

let shared: ReturnType<typeof createWidthProvider> | undefined;

function provider(): ReturnType<typeof createWidthProvider> {
  shared ??= createWidthProvider(unicode11Provider(unicode11().Unicode11Addon), GLIBC_OVERRIDES);
  return shared;
}

/** Builds the shared provider now (loads the Unicode 11 addon). */
export function preloadWidths(): void {
  provider();
}

/** Switches an xterm.js terminal (headless or not) to glibc widths. */
export function useGlibcWidths(unicode: UnicodeApi): void {
  unicode.register(provider());
  unicode.activeVersion = WIDTHS_VERSION;
}

/** Cells a code point takes (0, 1 or 2), as the screen counts them. */
export function codepointWidth(cp: number): number {
  return cp < 32 ? 0 : cp < 127 ? 1 : provider().wcwidth(cp);
}

/** Cells a string takes on one line (no control characters expected). */
export function stringWidth(text: string): number {
  let n = 0;
  for (const ch of text) n += codepointWidth(ch.codePointAt(0) ?? 0);
  return n;
}
