import { createRequire } from 'node:module';

/** Made on first use: creating it starts Node's CommonJS loader (about 4 ms of a protocol run's start). */
let requireFromHere: NodeJS.Require | undefined;

/**
 * A package loaded on first use instead of at start-up: a command that never diffs,
 * never reads a config file or never filters JSON does not pay for those libraries
 * (bench/cli-start.mjs measures the start-up).
 */
export function lazyPackage<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= (requireFromHere ??= createRequire(import.meta.url))(name) as T);
}
