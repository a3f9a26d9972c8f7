import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

// docs/cli.md is generated from the commands' own --help; it must say what --help says.
describe('docs/cli.md', () => {
  it('is what scripts/gen-cli-docs.mjs generates from --help today', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/gen-cli-docs.mjs'), '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('has a section for every command the bin lists (through the bin)', () => {
    const doc = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
    const top = execFileSync(process.execPath, [join(ROOT, 'dist/bundle/tapedeck.js'), '--help'], { encoding: 'utf8' });
    const names = [...top.matchAll(/^ {2}(\S+) {2,}/gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(10);
    expect(doc).toContain(top.trimEnd());
    expect(names.filter((n) => !doc.includes(`\n## tapedeck ${n}`))).toEqual([]);
  });
});
