#!/usr/bin/env node
// The tapedeck bin (scripts/bundle-cli.mjs copies this file to dist/bundle/tapedeck.js).
//
// Why a loader: on Node 20 a run's start was mostly Node loading code, not tapedeck running
// (bench/cli-start.mjs, docs/benchmarks.md). The bundle's chunks are CommonJS (dist/bundle/
// package.json says so), because an ES module entry alone starts Node's ES module loader (about
// 5 ms here), and this loader compiles each chunk with the V8 code cache the build wrote beside
// it (CHUNK.js.cache), which Node 20 offers only through vm.Script (Node 22's compile cache came
// later). A cache V8 rejects (another Node or V8 flags) or a missing one just means compiling
// the source, as Node would. Node built-ins that take a millisecond or more to load and that
// only some paths use load on first use (LAZY_BUILTINS), so that, say, a replay that fails on
// its tape never loads child_process. Each chunk lands in require.cache like any CommonJS
// module, so a chunk that a real require() reaches later is the same module.
'use strict';
const { readFileSync } = require('node:fs');
const { Script } = require('node:vm');
const Module = require('node:module');

const WRAPPER = '(function (exports, require, module, __filename, __dirname) {';
/** Not loaded by Node's own start, and costly (or pulling in others) when they are. */
const LAZY_BUILTINS = new Set(['node:child_process', 'node:crypto', 'node:net', 'node:os', 'node:fs/promises', 'node:http', 'node:https', 'node:http2', 'node:zlib', 'node:worker_threads', 'node:readline', 'node:tls', 'node:dgram', 'node:v8']);
const lazies = new Map();

/** A stand-in for a built-in module that loads it on the first property read. */
function lazyBuiltin(id) {
  let loaded;
  const real = () => (loaded ??= require(id));
  return new Proxy(
    {},
    {
      get: (_, key) => real()[key],
      has: (_, key) => key in real(),
      ownKeys: () => Reflect.ownKeys(real()),
      getOwnPropertyDescriptor: (_, key) => {
        const d = Reflect.getOwnPropertyDescriptor(real(), key);
        return d && { ...d, configurable: true };
      },
    },
  );
}

function chunkRequire(id) {
  if (id.startsWith('./')) return load(`${__dirname}/${id.slice(2)}`);
  if (!LAZY_BUILTINS.has(id)) return require(id);
  let lazy = lazies.get(id);
  if (!lazy) lazies.set(id, (lazy = lazyBuiltin(id)));
  return lazy;
}

function load(file) {
  const cached = require.cache[file];
  if (cached) return cached.exports;
  const m = new Module(file, module);
  m.filename = file;
  require.cache[file] = m;
  let cachedData;
  try {
    cachedData = readFileSync(`${file}.cache`);
  } catch {
    // no cache: compile the source
  }
  // On the wrapper's line: columnOffset keeps line 1's columns (the minified code) those of the file.
  const script = new Script(`${WRAPPER}${readFileSync(file, 'utf8')}\n})`, { filename: file, cachedData, columnOffset: -WRAPPER.length });
  script.runInThisContext()(m.exports, chunkRequire, m, file, __dirname);
  m.loaded = true;
  return m.exports;
}

if (require.main === module) load(`${__dirname}/bin.js`);
else module.exports = { WRAPPER };
