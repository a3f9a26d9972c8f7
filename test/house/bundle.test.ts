import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { execFileSync } from 'node:child_process';
import { agentHome } from '../helpers/agent-tty.js';
import { CLI, ROOT, run, useTempDirs } from '../helpers/cli.js';

/**
 * The bin users run is the bundle scripts/bundle-cli.mjs builds from dist/ (Node 20 pays
 * about 0.6 ms per ES module it loads). What it must keep: a protocol command reads a few
 * bundle files and none of the terminal or render packages, and the files it finds by path
 * (the package's version, the agent-tty host, the cast worker) are found from dist/bundle/.
 */
const temp = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

// Preloaded into the bin: every module file it loads, ES modules (a load hook) and CommonJS
// (require's cache at exit, where the bundle's chunks and createRequire'd packages such as node-pty land).
function loadRecorder(dir: string): { preload: string; list: string } {
  const list = join(dir, 'loaded.txt');
  const hook = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(list)}, new URL(url).pathname + '\\n');
  return next(url, context);
}`;
  const preload = join(dir, 'preload.mjs');
  writeFileSync(
    preload,
    `import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
const require = createRequire(import.meta.url);
process.on('exit', () => appendFileSync(${JSON.stringify(list)}, [...Object.keys(require.cache), ...process.moduleLoadList].join('\\n') + '\\n'));
`,
  );
  return { preload, list };
}

async function loadedBy(args: string[], input?: string): Promise<{ code: number | null; files: string[]; builtins: string[] }> {
  const dir = temp();
  const { preload, list } = loadRecorder(dir);
  const r = await run(['node', '--import', preload, CLI, ...args], { cwd: dir, input });
  const lines = readFileSync(list, 'utf8').split('\n');
  const files = [...new Set(lines.filter((f) => f.startsWith(ROOT)))].map((f) => relative(ROOT, f));
  const builtins = lines.filter((l) => l.startsWith('NativeModule ')).map((l) => l.slice('NativeModule '.length));
  return { code: r.code, files, builtins };
}

const HEAVY = ['node-pty', '@xterm/', 'playwright-core', 'pngjs', 'pixelmatch'];

describe('the bundled bin', () => {
  it('is what package.json names, and says the package version', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; bin: { tapedeck: string } };
    expect(pkg.bin.tapedeck).toBe('dist/bundle/tapedeck.js');
    const r = await run(['node', CLI, '--version']);
    expect(r.stdout.trim()).toBe(`tapedeck ${pkg.version}`);
  });

  // The bin compiles each chunk with the V8 code cache the build wrote beside it (scripts/bundle-loader.cjs):
  // a cache V8 rejects is silently compiled from source, so only this shows that the caches still fit.
  it('ships a code cache V8 accepts beside every chunk, as the bin compiles them', () => {
    // Checked in a fresh node, as the bin runs: V8 rejects a cache made under other flags, and a
    // suite worker that ran other files first may carry some.
    const dir = join(ROOT, 'dist/bundle');
    const check = `
      const { readdirSync, readFileSync } = require('node:fs'); const { join } = require('node:path'); const { Script } = require('node:vm');
      const dir = ${JSON.stringify(dir)}; const { WRAPPER } = require(join(dir, 'tapedeck.js'));
      const chunks = readdirSync(dir).filter((f) => f.endsWith('.js') && f !== 'tapedeck.js');
      const rejected = chunks.filter((f) => { const file = join(dir, f); return new Script(WRAPPER + readFileSync(file, 'utf8') + '\\n})', { filename: file, cachedData: readFileSync(file + '.cache'), columnOffset: -WRAPPER.length }).cachedDataRejected; });
      process.stdout.write(JSON.stringify({ chunks: chunks.length, rejected }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', check], { encoding: 'utf8', env: { PATH: process.env.PATH } })) as { chunks: number; rejected: string[] };
    expect(out.chunks).toBeGreaterThan(10);
    expect(out.rejected).toEqual([]);
  });

  const runs: Array<[string, string[], number, string?]> = [
    ['replay, a missing tape', ['replay', 'missing.ndjson', '--', 'true'], 2],
    ['serve, a missing tape', ['serve', 'missing.ndjson'], 2],
    ['record `true`', ['record', '--out', 'out.ndjson', '--', 'true'], 0],
    ['explain', ['explain', 'TD1001'], 0],
    ['fix, no envelopes', ['fix', '--apply', '--from-stdin'], 0, ''],
    ['replay --help', ['replay', '--help'], 0],
  ];
  for (const [what, args, code, input] of runs) {
    it(`${what}: reads at most six bundle files and no terminal or render package`, async () => {
      const r = await loadedBy(args, input);
      expect(r.code).toBe(code);
      const own = r.files.filter((f) => !f.startsWith('node_modules/'));
      expect(own.every((f) => f.startsWith('dist/bundle/')), own.join(', ')).toBe(true);
      expect(own.length, own.join(', ')).toBeLessThanOrEqual(6);
      // The bin's loader puts each chunk in require.cache, where the recorder finds it: the bin and its cli chunk at least.
      expect(own.filter((f) => /^dist\/bundle\/(tapedeck|bin|cli-.*)\.js$/.test(f)).length, own.join(', ')).toBe(3);
      expect(r.files.filter((f) => HEAVY.some((p) => f.startsWith(`node_modules/${p}`)))).toEqual([]);
      // Only HTTP tapes, transports and PNGs need these; they stay behind lazy imports in the bundle too
      // (worker_threads is left out: the load hook above runs on one).
      expect(r.builtins.filter((b) => ['http', 'https', 'zlib'].includes(b))).toEqual([]);
    });
  }

  it('starts an agent-tty session host from the bundle (tapedeck session)', async () => {
    const { home, cleanup } = agentHome();
    cleanups.push(cleanup);
    const session = (args: string[]) => run(['node', CLI, 'session', '--home', home, '--json', ...args], { env: { PS1: '$ ' } });
    const created = await session(['create', '--', 'bash', '--norc', '--noprofile']);
    expect(created.code, created.stderr + created.stdout).toBe(0);
    const id = JSON.parse(created.stdout).result.sessionId as string;
    const waited = await session(['wait', id, '--text', '$ ']);
    expect(JSON.parse(waited.stdout).result.matched).toBe(true);
  });

  it('reads a large cast on the worker that sits beside the bundle chunks', async () => {
    const dir = temp();
    const cast = join(dir, 'big.cast');
    // Above cast-play's worker threshold: the worker reads it while xterm.js parses.
    const lines = [JSON.stringify({ version: 2, width: 40, height: 5 })];
    for (let i = 0; i < 60_000; i++) lines.push(JSON.stringify([i / 1000, 'o', `line ${i}\r\n`]));
    writeFileSync(cast, `${lines.join('\n')}\n`);
    const r = await loadedBy(['snapshot', cast]);
    expect(r.code).toBe(0);
    expect(r.files).toContain('dist/bundle/steps-worker.js');
  });
});
