import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A file of the installed package, by its path from the package root (the nearest
 * directory above this module with a package.json). Modules run from dist/, from
 * the bundled bin in dist/bundle/ and from src/ under the tests, so a path relative
 * to the module itself would differ between them.
 */
export function packagePath(relative: string): string {
  return join(packageRoot(), relative);
}

let root: string | undefined;

function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return (root = dir);
}
