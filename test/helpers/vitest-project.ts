import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { ROOT, run, type RunResult } from './cli.js';

/**
 * A throwaway vitest project outside the repository that uses this checkout's
 * tapedeck as an installed package would (node_modules/tapedeck holds this
 * checkout's package.json and build, so `tapedeck/vitest` resolves through
 * package.json's exports), and this repository's vitest. Quicker than `npm pack` + install (which
 * test/in-your-project.test.ts does once), so a test can run many projects.
 */
export interface VitestProject {
  dir: string;
  write(path: string, content: string): void;
  read(path: string): string;
  /** Every file under `sub` (relative paths, sorted). */
  files(sub?: string): string[];
  vitest(args: string[], options?: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number }): Promise<VitestRun>;
  remove(): void;
}

export interface VitestAssertion {
  fullName: string;
  status: string;
  failureMessages: string[];
}
export interface VitestRun extends RunResult {
  report?: { success: boolean; snapshot?: Record<string, number>; testResults: { name: string; assertionResults: VitestAssertion[] }[] };
  /** Every assertion of the JSON report. */
  assertions: VitestAssertion[];
}

export const DEFAULT_CONFIG = `import { defineConfig } from 'vitest/config';
export default defineConfig({ test: { setupFiles: ['tapedeck/vitest'], include: ['test/**/*.test.ts'], testTimeout: 20_000 } });
`;

/**
 * node_modules/tapedeck as an install lays it out: package.json and dist/ as files
 * under node_modules (hard links to this checkout's build where they can be made),
 * its dependencies beside it. A symlink to the repository would put tapedeck's real
 * path outside node_modules, and vitest would transform every built module through
 * its module runner instead of letting Node load it: three times the CPU per run,
 * and not what a user's project does.
 */
export function linkInstalledTapedeck(at: string): void {
  mkdirSync(at);
  copyFileSync(join(ROOT, 'package.json'), join(at, 'package.json'));
  try {
    execFileSync('cp', ['-al', join(ROOT, 'dist'), join(at, 'dist')], { stdio: 'ignore' });
  } catch {
    // Hard links cannot cross file systems (a tmpfs /tmp): a copy (16 MB) then.
    rmSync(join(at, 'dist'), { recursive: true, force: true });
    cpSync(join(ROOT, 'dist'), join(at, 'dist'), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(at, 'node_modules'));
}

export function vitestProject(files: Record<string, string> = {}, name = 'project', fixture?: string): VitestProject {
  const dir = mkdtempSync(join(tmpdir(), `tapedeck-vt-${name}-`));
  if (fixture) cpSync(join(ROOT, 'test/fixtures/vitest', fixture), dir, { recursive: true });
  mkdirSync(join(dir, 'node_modules'));
  linkInstalledTapedeck(join(dir, 'node_modules/tapedeck'));
  symlinkSync(join(ROOT, 'node_modules/vitest'), join(dir, 'node_modules/vitest'));
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  write('package.json', JSON.stringify({ name, private: true, type: 'module' }));
  if (!('vitest.config.ts' in files) && !fixture) write('vitest.config.ts', DEFAULT_CONFIG);
  for (const [path, content] of Object.entries(files)) write(path, content);
  let runs = 0;
  return {
    dir,
    write,
    read: (path) => readFileSync(join(dir, path), 'utf8'),
    files(sub = '.') {
      const out: string[] = [];
      const walk = (d: string) => {
        for (const n of readdirSync(d)) {
          const p = join(d, n);
          if (statSync(p).isDirectory()) walk(p);
          else out.push(relative(join(dir, sub), p));
        }
      };
      try {
        walk(join(dir, sub));
      } catch {
        return [];
      }
      return out.sort();
    },
    async vitest(args, options = {}) {
      const reportFile = join(dir, `.report-${++runs}.json`);
      // CI cleared unless a run sets it: the outer run may be on CI. No colour, for plain messages.
      const res = await run(['node', join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--maxWorkers=2', '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`, ...args], {
        cwd: options.cwd ?? dir,
        env: { CI: '', GITHUB_ACTIONS: '', TAPEDECK_UPDATE: '', FORCE_COLOR: '0', NO_COLOR: '1', ...options.env },
        timeoutMs: options.timeoutMs ?? 240_000,
      });
      let report: VitestRun['report'];
      try {
        report = JSON.parse(readFileSync(reportFile, 'utf8'));
      } catch {
        report = undefined;
      }
      return { ...res, report, assertions: report?.testResults.flatMap((f) => f.assertionResults) ?? [] };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
