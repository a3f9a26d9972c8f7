import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { openCast } from '../tape/asciicast/read.js';
import { escapeHtml, playerAssets, scriptJson } from './assets.js';

/** A self-contained page that plays a cast in asciinema-player, markers included, with no network. */
export async function castToHtml(input: string): Promise<string> {
  const cast = await openCast(input); // validates the tape (file:line errors) before embedding it
  const markers: Array<[number, string]> = [];
  for await (const e of cast.events()) if (e.code === 'm') markers.push([e.time, e.data]);
  const { js, css } = playerAssets();
  const title = cast.header.title ?? basename(input);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>${css}</style><style>body{margin:24px;font:14px system-ui,sans-serif} #player{max-width:960px}</style></head>
<body><h1>${escapeHtml(title)}</h1><div id="player"></div>
<script>${js}</script>
<script>window.tapedeckPlayer = AsciinemaPlayer.create({ data: ${scriptJson(readFileSync(input, 'utf8'))} }, document.getElementById('player'), { markers: ${scriptJson(markers)}, fit: 'width' });</script>
</body></html>
`;
}
