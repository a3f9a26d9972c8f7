// `npm run bench`: runs every benchmark, one at a time (they measure the machine), and
// prints one table: path, tapedeck, baseline, ratio, target, pass. `--json` prints the
// rows as JSON instead. `node bench/run.mjs NAME...` runs only those benchmarks.
// Each benchmark prints its own detail and tagged rows (bench/lib.mjs row()).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';

const json = process.argv.includes('--json');
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
// The browserless prototype is an experiment, not a target: run it by name.
const skip = new Set(['run.mjs', 'lib.mjs', 'screenshot-browserless.mjs']);
const benches = readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith('.mjs') && !skip.has(f))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();

function runOne(file) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(import.meta.dirname, file)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const rows = [];
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      let nl;
      while ((nl = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.startsWith('BENCH ')) rows.push({ bench: file, ...JSON.parse(line.slice(6)) });
        else if (!json) process.stderr.write(`  ${line}\n`);
      }
    });
    child.on('close', (code) => resolve({ rows, code }));
  });
}

const rows = [];
let failedToRun = 0;
for (const file of benches) {
  if (!json) process.stderr.write(`${file}\n`);
  const { rows: got, code } = await runOne(file);
  if (got.length === 0) {
    failedToRun++;
    rows.push({ bench: file, path: `${file} (exit ${code}, no result)`, pass: false });
  }
  rows.push(...got);
}
const machine = `${cpus().length} x ${cpus()[0]?.model.trim()}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}`;
if (json) {
  process.stdout.write(`${JSON.stringify({ machine, rows }, null, 2)}\n`);
} else {
  const fmt = (n, unit) => (n === undefined ? '' : `${n < 10 ? n.toFixed(2) : n.toFixed(0)} ${unit}`);
  const table = [['path', 'tapedeck', 'baseline', 'ratio', 'target', 'pass']].concat(
    rows.map((r) => [r.path, fmt(r.tapedeck, r.unit), `${fmt(r.baseline, r.unit)}${r.note ? ` (${r.note})` : ''}`, r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}x`, r.target === undefined ? '' : `${r.bound === 'min' ? '>=' : '<='} ${r.target}x`, r.target === undefined ? '-' : r.pass ? 'yes' : 'NO']),
  );
  const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
  console.log(`machine: ${machine}`);
  for (const [i, r] of table.entries()) {
    console.log(`| ${r.map((c, j) => c.padEnd(widths[j])).join(' | ')} |`);
    if (i === 0) console.log(`| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`);
  }
}
process.exitCode = rows.every((r) => r.pass) && failedToRun === 0 ? 0 : 1;
