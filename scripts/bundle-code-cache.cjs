// Preloaded (node --require) into the bundled bin while scripts/bundle-cli.mjs builds it: at exit,
// writes the V8 code cache of every chunk this run compiled to CHUNK.js.cache. The loader reads
// the cache a previous run wrote, so functions compiled then are compiled here too, and a cache
// written after a run also holds the functions that run compiled on first call (one written
// right after compiling holds only the top level): each run adds its path to the caches.
'use strict';
const vm = require('node:vm');
const { writeFileSync } = require('node:fs');

const compiled = [];
const Compiled = class extends vm.Script {
  constructor(code, options) {
    super(code, options);
    compiled.push([options.filename, this]);
  }
};
vm.Script = Compiled; // before the loader takes Script from node:vm
process.on('exit', () => {
  for (const [file, script] of compiled) writeFileSync(`${file}.cache`, script.createCachedData());
});
