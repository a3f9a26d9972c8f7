import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, childEnv } from '../helpers/cli.js';

// README.md is the front door: short, and every command it shows is one that runs.
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const bin = join(ROOT, 'dist/bundle/tapedeck.js');
const shBlocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
/** Each command line of the sh blocks, continuation lines joined, comments dropped. */
const commandLines = shBlocks.flatMap((b) => b.replace(/\\\n\s*/g, '').split('\n')).map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean);

describe('README.md', () => {
  it('fits on a few screens: under 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThan(300);
  });

  it('names only commands and options that exist (checked against each command\'s --help)', () => {
    const uses = commandLines.flatMap((l) => [...l.matchAll(/(?:^|npx )tapedeck (\w+)((?: [^|;&]*)?)/g)]);
    expect(uses.length).toBeGreaterThan(4);
    for (const [, name, rest] of uses) {
      const help = execFileSync(process.execPath, [bin, name, '--help'], { encoding: 'utf8' });
      const beforeCmd = rest.split(' -- ')[0];
      for (const flag of beforeCmd.match(/(?<=\s)--?[a-z][\w-]*/g) ?? []) expect(help, `tapedeck ${name} ${flag}`).toContain(flag);
    }
  });

  it('links only to docs that exist', () => {
    for (const [, target] of readme.matchAll(/\]\((docs\/[^)#]+)\)/g)) expect(() => readFileSync(join(ROOT, target)), target).not.toThrow();
  });

  it('docs/ pages link only to files that exist', async () => {
    const { readdirSync } = await import('node:fs');
    const broken: string[] = [];
    for (const page of readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))) {
      const text = readFileSync(join(ROOT, 'docs', page), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)#:\s]+)(?:#[^)]*)?\)/g)) {
        try { readFileSync(join(ROOT, 'docs', target)); } catch { broken.push(`docs/${page} -> ${target}`); }
      }
    }
    expect(broken).toEqual([]);
  });

  it('the protocol tape example records and replays as written (npx tapedeck is the bin)', () => {
    const block = shBlocks.find((b) => b.includes('agent-client.mjs'))!;
    const dir = mkdtempSync(join(tmpdir(), 'tapedeck-readme-'));
    try {
      symlinkSync(join(ROOT, 'examples'), join(dir, 'examples'));
      mkdirSync(join(dir, '.bin'));
      writeFileSync(join(dir, '.bin/npx'), `#!/bin/sh\nshift\nexec ${process.execPath} ${bin} "$@"\n`, { mode: 0o755 });
      const r = spawnSync('bash', ['-euo', 'pipefail', '-c', block], { cwd: dir, encoding: 'utf8', env: childEnv({ PATH: `${join(dir, '.bin')}:${process.env.PATH}` }) });
      expect(r.stderr).toMatch(/0 drift\(s\)/);
      expect(r.status).toBe(0);
      expect(readFileSync(join(dir, 'goldens/demo/agent.ndjson'), 'utf8').split('\n').filter(Boolean).length).toBeGreaterThan(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
