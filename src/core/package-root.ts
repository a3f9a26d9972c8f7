import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A file of the installed package, by its path from the package root (the nearest
 * directory above this module with a package.json that names a package). Modules run
 * from dist/, from the bundled bin in dist/bundle/ and from src/ under the tests, so a
 * path relative to the module itself would differ between them. dist/bundle/ has a
 * package.json of its own that only says its files are CommonJS (scripts/bundle-cli.mjs):
 * it names no package, so the search goes on past it.
 */
export function packagePath(relative: string): string {
  return join(packageRoot(), relative);
}

let root: string | undefined;

function namesPackage(dir: string): boolean {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return false;
  try {
    return typeof (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === 'string';
  } catch {
    return false;
  }
}

function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!namesPackage(dir)) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json naming a package above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return (root = dir);
}
