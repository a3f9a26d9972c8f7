import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A package loaded on first use instead of at start-up: a command that never diffs,
 * never reads a config file or never filters JSON does not pay for those libraries
 * (bench/cli-start.mjs measures the start-up).
 */
export function lazyPackage<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
