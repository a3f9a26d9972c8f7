import { createRequire } from 'node:module';

/** gifenc is CommonJS to Node (its ES build is for bundlers): loaded through require, once. */
const require = createRequire(import.meta.url);
let loaded: typeof import('gifenc') | undefined;
export function gifenc(): typeof import('gifenc') {
  loaded ??= require('gifenc') as typeof import('gifenc');
  return loaded;
}
