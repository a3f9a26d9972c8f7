// Bundles the tapedeck bin (dist/cli/main.js, built by tsc) into dist/bundle/ with rolldown.
//
// Why: Node 20 loads ES modules one at a time (resolve, four file operations, compile), about
// 0.6 ms each, so a protocol `tapedeck replay` that loaded 57 modules spent most of its start on
// that (bench/cli-start.mjs). The modules a protocol-only command loads are grouped into a few
// chunks (groups() below: the bin and definitions, what the runs share, each run's own), so such
// a run reads five files; everything else keeps rolldown's default split by lazy import, so
// node-pty, xterm.js, Playwright and pngjs still load only when a command uses them.
// A chunk evaluates all its modules when it loads (rolldown hoists them), so a grouped module that
// was imported lazily now runs its top level earlier: tapedeck's modules only declare things and
// register exit hooks there. The cast-reading worker is a second entry, beside the chunks as it is
// beside cast/play.js in dist/; the agent-tty host that `tapedeck session` starts is the unbundled
// dist/ file (client/spawn-host.ts finds it from the package root).
// The chunks are CommonJS, and the bin, dist/bundle/tapedeck.js, is scripts/bundle-loader.cjs: it
// loads them with the V8 code cache written here beside each (CHUNK.js.cache), and says why.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { Script } from 'node:vm';
import { build } from 'rolldown';

const root = resolve(import.meta.dirname, '..');
const dist = resolve(root, 'dist');
const out = resolve(dist, 'bundle');
const main = resolve(dist, 'cli/main.js');
const worker = resolve(dist, 'session/cast/steps-worker.js');
const PROTOCOL_COMMANDS = ['replay', 'record', 'serve', 'explain', 'fix'];

/** The terminal and render stacks (render/profile-names.js is a list of names replay's help shows). */
const terminalOrRender = (id) => {
  const path = relative(dist, id);
  return (path.startsWith('session/') || path.startsWith('render/')) && path !== 'render/profile-names.js';
};
/** Node built-ins that cost a run noticeably to load, and that only some runs need. */
const LAZY_BUILTINS = new Set(['node:http', 'node:https', 'node:http2', 'node:zlib', 'node:worker_threads', 'node:readline']);
/** An npm package (external here), not a Node built-in. */
const isPackage = (id) => (!id.startsWith('/') && !id.startsWith('node:')) || id.includes('/node_modules/');

/** Module id → { eager: ids imported statically, lazy: ids imported with import() }, filled as rolldown parses. */
const graph = new Map();
let chunks;
const inGroup = (id, pick) => pick((chunks ??= groups())).has(id);

function eagerClosure(start) {
  const seen = new Set();
  const stack = [start];
  while (stack.length > 0) {
    const id = stack.pop();
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(graph.get(id)?.eager ?? []));
  }
  return seen;
}

/** Modules whose eager closure stays clear of the terminal and render stacks and of npm packages. */
function protocolOnly(ids) {
  const closure = new Set();
  for (const id of ids) for (const m of eagerClosure(id)) closure.add(m);
  return [...closure].some((m) => terminalOrRender(m) || isPackage(m) || m === worker) ? undefined : closure;
}

/**
 * What a command's run loads: its definition's lazy imports (the run module) with all they
 * import eagerly, and the lazy imports those make in turn (the recorder's tap, the replay of a
 * tape), as long as each stays protocol-only.
 */
function runModules(definitionId) {
  const loaded = new Set();
  let lazy = graph.get(definitionId)?.lazy ?? [];
  for (let depth = 0; depth < 2; depth++) {
    const next = [];
    for (const id of lazy) {
      const closure = protocolOnly([id]);
      // What only some tapes need (HTTP and Unix-socket transports) stays behind its lazy import.
      if (!closure || [...closure].some((m) => LAZY_BUILTINS.has(m))) continue;
      for (const m of closure) if (!loaded.has(m)) loaded.add(m), next.push(...(graph.get(m)?.lazy ?? []));
    }
    lazy = next;
  }
  return loaded;
}

/**
 * The chunks a protocol command loads. `cli`: what every invocation loads (the bin's own
 * imports) and the protocol commands' definitions, so `--help` stays small. Then what each
 * command's run loads before it meets a server (runModules): what two or more runs share in
 * `run-shared`, the rest in `run-COMMAND`. What a run loads later (an HTTP transport, an
 * update) keeps rolldown's own chunks.
 */
function groups() {
  const definition = (c) => resolve(dist, `cli/commands/${c}.js`);
  const cli = protocolOnly([main, ...PROTOCOL_COMMANDS.map(definition)]) ?? new Set();
  cli.delete(main); // the entry keeps its own code: it runs the CLI
  const runs = new Map(PROTOCOL_COMMANDS.map((c) => [c, [...runModules(definition(c))].filter((m) => !cli.has(m))]));
  const uses = new Map();
  for (const ids of runs.values()) for (const m of ids) uses.set(m, (uses.get(m) ?? 0) + 1);
  const shared = new Set([...uses].filter(([, n]) => n > 1).map(([m]) => m));
  const own = new Map([...runs].map(([c, ids]) => [c, new Set(ids.filter((m) => !shared.has(m)))]));
  return { cli, shared, own };
}

rmSync(out, { recursive: true, force: true });
await build({
  input: { bin: main, 'steps-worker': worker },
  platform: 'node',
  external: (id) => !id.startsWith('.') && !id.startsWith('/'),
  plugins: [
    {
      name: 'import-graph',
      moduleParsed(info) {
        graph.set(info.id, { eager: info.importedIds, lazy: info.dynamicallyImportedIds });
      },
    },
  ],
  output: {
    dir: out,
    // CommonJS: an ES module entry starts Node's ES module loader (about 5 ms of every start), and
    // only scripts can be given a code cache on Node 20. Strict, as the ES modules were; import()
    // of a package or built-in becomes require(), so no path starts the ES module loader.
    format: 'cjs',
    strict: true,
    dynamicImportInCjs: false,
    sourcemap: true,
    // Smaller files parse sooner: about 3 ms of a protocol run's start (the source maps lead back).
    minify: true,
    // One non-ASCII character makes V8 hold the whole chunk as two-byte text.
    charset: 'ascii',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
    codeSplitting: {
      groups: [
        { name: 'cli', test: (id) => inGroup(id, (g) => g.cli) },
        { name: 'run-shared', test: (id) => inGroup(id, (g) => g.shared) },
        ...PROTOCOL_COMMANDS.map((c) => ({ name: `run-${c}`, test: (id) => inGroup(id, (g) => g.own.get(c)) })),
      ],
    },
  },
  logLevel: 'warn',
  onLog(level, log, handler) {
    // A lazy import of a module another module imports statically stays where it is: expected here.
    if (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT') return;
    handler(level, log);
  },
});
// The bin: the loader, with the chunks marked CommonJS (a package.json that names no package:
// core/package-root.ts looks past it), and each chunk's code cache, compiled as the loader does.
writeFileSync(join(out, 'package.json'), '{ "type": "commonjs" }\n');
copyFileSync(resolve(root, 'scripts/bundle-loader.cjs'), join(out, 'tapedeck.js'));
// The loader compiles bin.js inside a function, where a #! line is a syntax error (same length: the map holds).
const bin = join(out, 'bin.js');
writeFileSync(bin, readFileSync(bin, 'utf8').replace(/^#!/, '//'));
const { WRAPPER } = createRequire(import.meta.url)('./bundle-loader.cjs');
const chunkFiles = readdirSync(out).filter((f) => f.endsWith('.js') && f !== 'tapedeck.js').map((f) => join(out, f));
const compile = (file, cachedData) => new Script(`${WRAPPER}${readFileSync(file, 'utf8')}\n})`, { filename: file, cachedData, columnOffset: -WRAPPER.length });
// First every chunk's top level, then the protocol commands run through the bin, each adding the
// functions its start compiles on first call (bundle-code-cache.cjs): what each such start
// would otherwise compile before it does anything; recording `true` is a record run's whole path
// short of a server's first pair (run-record's cache 6 -> 25 KB: 1.2 ms less to record `true`, the
// other runs alike). (Training on a full record and replay too made caches that took as long to
// read as the compiling they spared: docs/benchmarks.md.)
for (const file of chunkFiles) writeFileSync(`${file}.cache`, compile(file).createCachedData());
trainCodeCache();
for (const file of chunkFiles) if (compile(file, readFileSync(`${file}.cache`)).cachedDataRejected) throw new Error(`bundle-cli: V8 rejects the code cache of ${file}`);

function trainCodeCache() {
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-bundle-'));
  const runs = [
    [['replay', 'missing.ndjson', '--', 'true'], '', 2],
    [['serve', 'missing.ndjson'], '', 2],
    [['record', '--out', 'out.ndjson', '--', 'true']],
    [['explain', 'TD1001']],
    [['fix', '--apply', '--from-stdin'], ''],
    ...['replay', 'record', 'serve', 'explain', 'fix'].map((c) => [[c, '--help']]),
  ];
  try {
    for (const [args, input = '', code = 0] of runs) {
      const r = spawnSync(process.execPath, ['--require', resolve(root, 'scripts/bundle-code-cache.cjs'), join(out, 'tapedeck.js'), ...args], { cwd: dir, input, encoding: 'utf8' });
      if (r.status !== code) throw new Error(`bundle-cli: tapedeck ${args.join(' ')} exited ${r.status}, expected ${code}: ${r.stderr}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
if (!chunks || chunks.cli.size < 5 || chunks.shared.size < 10) throw new Error('bundle-cli: the cli and run-shared chunks are nearly empty; the import graph was not read');
const sizes = [...chunks.own].map(([c, ids]) => `${c} ${ids.size}`).join(', ');
console.error(`bundle: ${relative(root, out)}/tapedeck.js, CommonJS chunks with code caches (modules: cli ${chunks.cli.size}, run-shared ${chunks.shared.size}, ${sizes})`);
