import { readFileSync } from 'node:fs';
import xt from '@xterm/headless';
import { Screen } from '../../dist/session/screen/screen.js';
const bytes = readFileSync(new URL('../out/terminal-50mb.bin', import.meta.url)).subarray(0, 16 << 20);
const chunks = []; for (let o = 0; o < bytes.length; o += 65536) chunks.push(bytes.subarray(o, o + 65536));
async function run(kind) {
  const c0 = process.cpuUsage();
  let write, flush, dispose;
  if (kind === 'raw') { const t = new xt.Terminal({ cols: 120, rows: 40, allowProposedApi: true }); let last; write = (b) => (last = new Promise((r) => t.write(b, r))); flush = () => last; dispose = () => t.dispose(); }
  else { const s = new Screen({ rows: 40, cols: 120 }); write = (b) => s.write(b); flush = () => s.flush(); dispose = () => s.dispose(); }
  for (let i = 0; i < chunks.length; i++) { write(chunks[i]); if (i % 32 === 31) await flush(); }
  await flush();
  const c = process.cpuUsage(c0); dispose();
  return ((c.user + c.system) / 1000).toFixed(0);
}
const order = process.argv.slice(2);
for (const k of order) console.log(k, await run(k), 'ms cpu');
