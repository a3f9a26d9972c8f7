import { readFileSync } from 'node:fs';
import xt from '@xterm/headless';
import { Screen } from '../../dist/session/screen/screen.js';
const bytes = readFileSync(new URL('../out/terminal-50mb.bin', import.meta.url)).subarray(0, 16 << 20);
const chunks = []; for (let o = 0; o < bytes.length; o += 65536) chunks.push(bytes.subarray(o, o + 65536));
async function run(kind) {
  const t0 = performance.now(); const c0 = process.cpuUsage();
  if (kind === 'raw') { const t = new xt.Terminal({ cols: 120, rows: 40, allowProposedApi: true }); let last, inF = 0; for (const p of chunks) { inF += p.length; last = new Promise((r) => t.write(p, () => { inF -= p.length; r(); })); if (inF > 4 << 20) await last; } await last; t.dispose(); }
  else if (kind === 'sync') { const s = new Screen({ rows: 40, cols: 120 }); const core = s.xterm._core; for (const p of chunks) { core.writeSync(s['guard'].filter(p)); if (Math.random() < 0.05) await new Promise(setImmediate); } s.dispose(); }
  else { const s = new Screen({ rows: 40, cols: 120 }); let inF = 0; for (const p of chunks) { inF += p.length; void s.write(p).then(() => (inF -= p.length)); if (inF > 4 << 20) await s.flush(); } await s.flush(); s.dispose(); }
  const c = process.cpuUsage(c0);
  return `${(performance.now() - t0).toFixed(0)} ms wall, ${((c.user + c.system) / 1000).toFixed(0)} ms cpu`;
}
for (const k of process.argv.slice(2)) console.log(k.padEnd(6), await run(k));
