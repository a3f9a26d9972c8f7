import { describe, expect, it } from 'vitest';
import { eagerClosure, fileCycles, layerOf, LAYERS, readImportGraph } from '../helpers/import-graph.js';

// The shape docs/ARCHITECTURE.md describes, checked on every run: imports go down the
// layers only, no file imports itself round a cycle, files stay small, and commands
// that never touch a terminal never load the terminal or render stack.
const graph = readImportGraph();
const MAX_LINES = 350;

describe('architecture', () => {
  it('imports only go down the layers', () => {
    const upward = graph.references
      .filter((r) => graph.lines.has(r.to) && layerOf(r.to) > layerOf(r.from))
      .map((r) => `src/${r.from}:${r.line} imports src/${r.to} (${LAYERS[layerOf(r.from)]} may not import ${LAYERS[layerOf(r.to)] ?? 'the package entry'})`);
    expect(upward).toEqual([]);
  });

  // A newcomer finds a job from the tree: each layer's README.md names its rooms, and the tests sit
  // in folders beside the code they cover, never flat in test/.
  it('each layer folder has a README.md that names every room (sub-folder) it holds', async () => {
    const { readdirSync, readFileSync, existsSync } = await import('node:fs');
    const src = new URL('../../src/', import.meta.url).pathname;
    const missing: string[] = [];
    for (const layer of LAYERS.flat()) {
      const readme = `${src}${layer}/README.md`;
      if (!existsSync(readme)) { missing.push(`src/${layer}/README.md`); continue; }
      const text = readFileSync(readme, 'utf8');
      for (const room of readdirSync(`${src}${layer}`, { withFileTypes: true }).filter((e) => e.isDirectory())) {
        if (!text.includes(`${room.name}/`)) missing.push(`src/${layer}/README.md does not name ${room.name}/`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('keeps tests in folders (test/<area>/), none flat in test/', async () => {
    const { readdirSync } = await import('node:fs');
    const flat = readdirSync(new URL('..', import.meta.url)).filter((f) => f.endsWith('.test.ts'));
    expect(flat).toEqual([]);
  });

  it('has no file cycles', () => {
    expect(fileCycles(graph)).toEqual([]);
  });

  it(`keeps every source file under ${MAX_LINES} lines`, () => {
    const long = [...graph.lines].filter(([, n]) => n > MAX_LINES).map(([f, n]) => `src/${f}: ${n} lines`);
    expect(long).toEqual([]);
  });

  it('keeps the public entry small: fewer than 40 values, no export *', async () => {
    const api = await import('../../src/index.js');
    expect(Object.keys(api).length).toBeLessThan(40);
    const text = (await import('node:fs')).readFileSync(new URL('../../src/index.ts', import.meta.url), 'utf8');
    expect(text).not.toMatch(/export \*/);
  });

  // A protocol-only command must start fast and work without the native PTY module or a browser
  // (and the libraries only a drift, a config file, a JSONPath or a glob needs load when one appears).
  // Its run graph: the bin, the command's module, what that module imports lazily itself (its run
  // module, or what run needs, loaded once the options are parsed) and all they import eagerly. It
  // holds no terminal or render stack: no session/ or render/ file but the profile names replay's help lists.
  const heavy = ['node-pty', '@xterm/headless', '@xterm/xterm', 'playwright-core', 'pngjs', 'pixelmatch', 'diff', 'jsonpath-plus', 'jsonc-parser', 'tinyglobby'];
  const terminalOrRender = (f: string) => (f.startsWith('session/') || f.startsWith('render/')) && f !== 'render/profile-names.ts';
  const lazyFrom = (file: string) => graph.references.filter((r) => r.from === file && r.lazy && !r.typeOnly).map((r) => r.to);
  for (const command of ['replay', 'record', 'serve', 'explain', 'fix', 'review']) {
    it(`tapedeck ${command} loads no terminal or render package or module until it needs one`, () => {
      const entry = `cli/commands/${command}.ts`;
      const loaded = eagerClosure(graph, ['cli/main.ts', entry, ...lazyFrom(entry)]);
      expect([...heavy, ...[...loaded].filter(terminalOrRender)].filter((p) => loaded.has(p))).toEqual([]);
    });
  }

  // `tapedeck COMMAND --help` (and a usage error) loads the definition only: the bin, the command
  // module and the CLI's own helpers, nothing a run needs (bench/cli-start.mjs measures it).
  // and what the bin itself runs at exit (plumbing/process/shutdown.ts: a list of closers, no imports).
  const helpConstants = ['replayer/terminal/defaults.ts', 'render/profile-names.ts', 'plumbing/process/shutdown.ts'];
  for (const command of ['replay', 'report', 'record', 'serve', 'explain', 'fix', 'version', 'vhs']) {
    it(`tapedeck ${command} --help loads only cli/ and core/ modules`, () => {
      const loaded = eagerClosure(graph, ['cli/main.ts', `cli/commands/${command}.ts`]);
      const beyond = [...loaded].filter((f) => f.endsWith('.ts') && !f.startsWith('cli/') && !f.startsWith('core/') && !helpConstants.includes(f));
      expect(beyond).toEqual([]);
    });
  }

  // `import 'tapedeck'` for a protocol replay (bench/protocol-replay.mjs): the terminal,
  // render, report and recorder stacks load when one of their functions is first called.
  it('the library entry loads no terminal, render or report stack until one of their functions is called', () => {
    const loaded = eagerClosure(graph, ['index.ts']);
    const stacks = ['replayer/terminal/replay.ts', 'recorder/terminal/record.ts', 'render/browser/renderer.ts', 'render/screenshot/terminal.ts', 'report/from-run.ts', 'render/video/export-video.ts', 'session/cast/play.ts'];
    // Left out: pixelmatch (comparePngs is synchronous) and node-pty, which the Terminal class
    // (a value export) requires inside the function that starts a terminal.
    expect([...heavy.filter((p) => p !== 'pixelmatch' && p !== 'node-pty'), ...stacks].filter((p) => loaded.has(p))).toEqual([]);
  });
});
