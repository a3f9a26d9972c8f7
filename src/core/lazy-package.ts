import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { TapedeckError } from './diagnostics/errors.js';

/** Made on first use: creating it starts Node's CommonJS loader (about 4 ms of a protocol run's start). */
let requireFromHere: NodeJS.Require | undefined;
const req = () => (requireFromHere ??= createRequire(import.meta.url));

/**
 * A package loaded on first use instead of at start-up: a command that never diffs,
 * never reads a config file or never filters JSON does not pay for those libraries
 * (bench/cli-start.mjs measures the start-up).
 */
export function lazyPackage<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= req()(name) as T);
}

/**
 * tapedeck's optionalDependencies: installed by default, skipped by
 * `npm install --omit=optional` (a protocol-only install). Screenshots need the
 * renderer and fonts (the @fontsource fonts come with tapedeck, trimmed), terminals
 * need node-pty and xterm.js. Every load of one of
 * them goes through optionalPackage/optionalPackageDir, so a missing one is one
 * clear error (exit 2) naming the package and the command to install it.
 */
export const OPTIONAL_PACKAGES = {
  '@napi-rs/canvas': 'screenshots',
  'dejavu-fonts-ttf': 'screenshots',
  'subset-font': 'screenshots',
  gifenc: 'screenshots',
  omggif: 'screenshots',
  pngjs: 'screenshots',
  pixelmatch: 'screenshots',
  'playwright-core': 'screenshots',
  '@xterm/xterm': 'screenshots',
  'node-pty': 'terminals',
  '@xterm/headless': 'terminals',
  '@xterm/addon-unicode11': 'terminals',
} as const;
export type OptionalPackage = keyof typeof OPTIONAL_PACKAGES;

let command: string | undefined;
/** The CLI names the command it runs, so a missing package's message says which command needed it. */
export function setRunningCommand(name: string | undefined): void {
  command = name;
}

/** "tapedeck screenshot needs the optional package @napi-rs/canvas: npm install @napi-rs/canvas" */
export function optionalPackageMissing(name: OptionalPackage, cause?: unknown): TapedeckError {
  const who = command ? `tapedeck ${command}` : `tapedeck's ${OPTIONAL_PACKAGES[name]}`;
  const verb = command ? 'needs' : 'need';
  return new TapedeckError('OPTIONAL_PACKAGE_MISSING', `${who} ${verb} the optional package ${name}: npm install ${name}`, {
    details: { package: name },
    cause,
  });
}

const notFound = (err: unknown) => {
  const code = (err as { code?: string } | null)?.code;
  return code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND';
};

/**
 * An optional package, loaded on first use (or `dependency`, a package of its own
 * dependencies, resolved from its folder). A package that is not installed (or lost
 * a module it needs) is an OPTIONAL_PACKAGE_MISSING error; any other failure to load
 * is rethrown as it was (the caller knows what it means).
 */
export function optionalPackage<T>(name: OptionalPackage, dependency?: string): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded !== undefined) return loaded;
    try {
      loaded = (dependency ? createRequire(req().resolve(`${name}/package.json`))(dependency) : req()(name)) as T;
    } catch (err) {
      if (notFound(err)) throw optionalPackageMissing(name, err);
      throw err;
    }
    return loaded;
  };
}

/** The root folder of an optional package (for packages of files, like fonts), or the missing-package error. */
export function optionalPackageDir(name: OptionalPackage): string {
  const dir = findPackageDir(name);
  if (!dir) throw optionalPackageMissing(name);
  return dir;
}

/** The root folder of a package, or null when it is not installed. */
export function findPackageDir(name: string): string | null {
  try {
    return dirname(req().resolve(`${name}/package.json`));
  } catch {
    return null;
  }
}
