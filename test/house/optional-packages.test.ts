import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/** package.json's optionalDependencies are loaded only through core/lazy-package.ts, which turns a missing one into exit 2 naming it. */
const OPTIONAL = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { optionalDependencies: Record<string, string> }).optionalDependencies);

describe('optional packages load through one helper', () => {
  test('no module under src/ imports or requires an optional package except core/lazy-package.ts', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (lstatSync(p).isDirectory()) walk(p);
        else if (p.endsWith('.ts') && !p.endsWith('.d.ts') && !p.endsWith('core/lazy-package.ts')) {
          const text = readFileSync(p, 'utf8');
          for (const pkg of OPTIONAL) {
            const quoted = pkg.replace(/[/.]/g, '\\$&');
            // A value import, a dynamic import or a require (type-only imports and package.json reads are fine).
            const load = new RegExp(`^import (?!type )[^;]*from '${quoted}'|import\\('${quoted}'\\)(?!\\[|\\.|>)|require\\('${quoted}'\\)`, 'm');
            if (load.test(text.replace(/typeof import\('[^']+'\)/g, ''))) offenders.push(`${p}: ${pkg}`);
          }
        }
      }
    };
    walk(join(ROOT, 'src'));
    expect(offenders).toEqual([]);
  });
});
