import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The report is one self-contained file: asciinema-player's bundle and CSS
 * are read from the installed package and inlined, so it opens with no network.
 */
const require = createRequire(import.meta.url);

let cached: { js: string; css: string } | undefined;

export function playerAssets(): { js: string; css: string } {
  if (!cached) {
    const js = readFileSync(require.resolve('asciinema-player/dist/bundle/asciinema-player.min.js'), 'utf8');
    const css = readFileSync(require.resolve('asciinema-player/dist/bundle/asciinema-player.css'), 'utf8');
    cached = { js, css };
  }
  return cached;
}

/** Text safe inside HTML elements and attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** JSON safe inside a <script> element (no "</script>", no U+2028 surprises). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

export function pngDataUri(png: Buffer): string {
  return `data:image/png;base64,${png.toString('base64')}`;
}
