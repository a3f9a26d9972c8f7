// Copies the part of the @fontsource fonts the renderers read into dist/fonts/, so the package
// carries them instead of depending on @fontsource/noto-sans-sc (76 MB, 1,836 files: nine
// weights, each in woff and woff2) and @fontsource/noto-emoji (11 MB).
//
// What is read: every renderer uses the 400 normal faces of its stylesheet 400.css only
// (render/raster/fonts.ts registers the .woff files it names, render/svg/fonts.ts subsets its
// .woff2 files, and the Chromium page links 400.css, which names both). So 400.css, the
// files it names, package.json (the version goes into the render profile and the PNG stamp)
// and the licence are copied: about 10 MB. The @fontsource packages are devDependencies.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const require = createRequire(join(root, 'package.json'));
const out = join(root, 'dist/fonts');

for (const name of ['@fontsource/noto-emoji', '@fontsource/noto-sans-sc']) {
  const from = dirname(require.resolve(`${name}/package.json`));
  const to = join(out, name);
  rmSync(to, { recursive: true, force: true });
  mkdirSync(join(to, 'files'), { recursive: true });
  const css = readFileSync(join(from, '400.css'), 'utf8');
  const files = new Set([...css.matchAll(/url\(\.\/files\/([^)]+)\)/g)].map((m) => m[1]));
  if (files.size === 0) throw new Error(`${name}/400.css names no font files`);
  for (const f of ['400.css', 'package.json', 'LICENSE']) if (existsSync(join(from, f))) copyFileSync(join(from, f), join(to, f));
  for (const f of files) copyFileSync(join(from, 'files', f), join(to, 'files', f));
  process.stderr.write(`fonts: ${name} 400 normal, ${files.size} files\n`);
}
