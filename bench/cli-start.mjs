// Benchmark: how long a protocol-only command takes to start, against a bare `node -e 0`.
// Two rows per command. `--help` loads the bin and the command's definition (its options and
// help) and exits: what every invocation pays before anything runs. The run row is the command
// actually running, as far as it goes without a server: it loads everything a protocol run of
// that command loads eagerly (the module graph a run module and its imports make) and stops at
// the first thing it cannot do (a missing tape: exit 2), or does its whole job when that is
// small (explain a code, fix with no envelopes, record `true`). Lazy loading keeps node-pty,
// xterm, playwright and pngjs out of both. Target: within 1.3x of bare node. Interleaved, medians.
// Beside each run row, its floor: one ES module importing the Node built-ins that run loads
// (read from process.moduleLoadList in a first run) and nothing else, the least any program
// doing that job in Node pays before its own code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median, row } from './lib.mjs';

const root = resolve(import.meta.dirname, '..');
const runs = Number(process.env.RUNS ?? 15);
const dir = mkdtempSync(join(tmpdir(), 'tapedeck-bench-start-'));
const missing = join(dir, 'missing.ndjson');
const bin = join(root, 'dist/bundle/tapedeck.js');
const time = (args, expectCode) => {
  const t0 = performance.now();
  const { status } = spawnSync(process.execPath, args, { stdio: 'ignore' });
  const ms = performance.now() - t0;
  if (status !== expectCode) throw new Error(`node ${args.join(' ')}: exit ${status}, expected ${expectCode}`);
  return ms;
};
const RUN = {
  replay: { args: ['replay', missing, '--', 'true'], code: 2, what: 'a missing tape' },
  record: { args: ['record', '--out', join(dir, 'out.ndjson'), '--', 'true'], code: 0, what: 'recording `true`' },
  serve: { args: ['serve', missing], code: 2, what: 'a missing tape' },
  explain: { args: ['explain', 'TD1001'], code: 0, what: 'one code' },
  fix: { args: ['fix', '--apply', '--from-stdin'], code: 0, what: 'no envelopes' },
};
// Preloaded into one run: at exit, the public built-ins the process loaded.
const listBuiltins = join(dir, 'list-builtins.mjs');
writeFileSync(
  listBuiltins,
  `import { isBuiltin } from 'node:module';
import { writeFileSync } from 'node:fs';
process.on('exit', () => {
  const names = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13));
  writeFileSync(process.env.TAPEDECK_BENCH_BUILTINS, JSON.stringify(names.filter((n) => !n.startsWith('internal/') && isBuiltin(n))));
});
`,
);
function floorScript(command, args) {
  const out = join(dir, `${command}-builtins.json`);
  spawnSync(process.execPath, ['--import', listBuiltins, bin, ...args], { stdio: 'ignore', env: { ...process.env, TAPEDECK_BENCH_BUILTINS: out } });
  const names = JSON.parse(readFileSync(out, 'utf8'));
  const script = join(dir, `${command}-floor.mjs`);
  writeFileSync(script, names.map((n) => `import 'node:${n}';\n`).join(''));
  return { script, names };
}
try {
  for (const [command, run] of Object.entries(RUN)) {
    const floor = floorScript(command, run.args);
    const floorMs = [];
    const bare = [];
    const help = [];
    const ran = [];
    for (let i = 0; i < runs; i++) {
      bare.push(time(['-e', '0'], 0));
      help.push(time([bin, command, '--help'], 0));
      ran.push(time([bin, ...run.args], run.code));
      floorMs.push(time([floor.script], 0));
    }
    const b = median(bare);
    const h = median(help);
    const r = median(ran);
    const f = median(floorMs);
    console.log(`tapedeck ${command} --help: ${h.toFixed(0)} ms, run (${run.what}): ${r.toFixed(0)} ms, its built-ins alone (${floor.names.length}): ${f.toFixed(0)} ms, node -e 0: ${b.toFixed(0)} ms`);
    row({ path: `CLI start: ${command} --help`, tapedeck: h, baseline: b, unit: 'ms', target: 1.3, note: 'node -e 0' });
    row({ path: `CLI start: ${command}, a run (${run.what})`, tapedeck: r, baseline: b, unit: 'ms', target: 1.3, note: `node -e 0; floor ${(f / b).toFixed(2)}x` });
    row({ path: `  floor: an ES module importing the built-ins that run loads`, tapedeck: f, baseline: b, unit: 'ms', target: 1.3, note: 'node -e 0' });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
