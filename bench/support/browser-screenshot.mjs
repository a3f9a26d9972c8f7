// The browser path of `tapedeck screenshot FILE.cast --out OUT` in a process of its own: the cast
// played to its end, the screen painted by xterm.js in Chromium and captured (the renderer tapedeck
// used for screenshots before the raster one), the PNG written. For bench/screenshot-raster.mjs.
import { writeFileSync } from 'node:fs';
const [dist, cast, out] = process.argv.slice(2);
const { playCast } = await import(`${dist}/session/cast/play.js`);
const { closeRenderer, renderSnapshot } = await import(`${dist}/render/browser/renderer.js`);
const played = await playCast(cast, undefined, { scrollback: 0 });
const shot = await renderSnapshot(played.screen.snapshot({ includeCells: true }));
played.screen.dispose();
writeFileSync(out, shot.png);
await closeRenderer();
