import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { usageError } from '../../core/diagnostics/errors.js';
import { defineCommand } from '../command.js';

/**
 * `tapedeck init`: the files a project needs to start testing with tapedeck
 * (docs/vitest.md "Set up a project"), each written only when absent: an
 * existing file is never touched, and the run says what it skipped.
 */
const CONFIG_NAMES = ['tapedeck.config.json', 'tapedeck.config.ts', 'tapedeck.config.mts', 'tapedeck.config.js', 'tapedeck.config.mjs'];
const VITEST_CONFIGS = ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'].flatMap((ext) => [`vitest.config.${ext}`, `vite.config.${ext}`, `vitest.workspace.${ext}`]);

const CONFIG_JSON = `{
  "goldens": "goldens",
  "matchers": {
    "toContainText": { "timeoutMs": 5000 }
  }
}
`;

const CONFIG_TS = `import { defineConfig } from 'tapedeck/config';

export default defineConfig({
  goldens: 'goldens',
  matchers: {
    toContainText: { timeoutMs: 5000 },
  },
});
`;

const VITEST_CONFIG = `import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    setupFiles: ['tapedeck/vitest'],                            // tapedeck's matchers in every test file
    reporters: ['default', 'tapedeck/vitest/reporter'],         // "tapedeck goldens: 1 written, ..." per run
    testTimeout: 15_000,                                        // room for a program to start and a 5 s assertion
    // The programs your tests spawn are not imported: list their sources so watch mode re-runs on a change.
    forceRerunTriggers: ['**/package.json/**', '**/vitest.config.*/**', '**/src/**', '**/bin/**'],
  },
});
`;

const EXAMPLE_TEST = `import { expect, test } from 'vitest';
import { spawnTerminal } from 'tapedeck';
import 'tapedeck/vitest';

// A first screen test: bash prints a line and waits. The golden is
// goldens/test/tapedeck.test.ts/bash-prints-a-greeting.txt, written on the first run.
test('bash prints a greeting', async () => {
  const term = spawnTerminal('bash', ['--norc', '--noprofile', '-c', 'printf "hello from tapedeck\\\\n"; read -r line'], { rows: 6, cols: 40 });
  await expect(term).toContainText('hello from tapedeck');
  await expect(term).toMatchScreen();
});
`;

const GITATTRIBUTES = `goldens/**/*.txt    text eol=lf
goldens/**/*.ndjson text eol=lf
goldens/**/*.cast   text eol=lf
goldens/**/*.png    binary
`;

const workflow = (action: string) => `name: tapedeck
on:
  push:
  pull_request:
jobs:
  goldens:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      # Installs, runs vitest with tapedeck's reporter (CI: a missing or changed golden fails),
      # uploads the HTML report and JUnit, and writes the drift into the job summary.
      - uses: ${action}
        with:
          vitest: 'true'
          # tapes: 'goldens/*.ndjson'
          # command: 'node server.js'
`;

export const command = defineCommand({
  name: 'init',
  summary: 'set up a project: config, goldens/, an example test, vitest.config.ts and a GitHub workflow',
  usage: ['[DIR] [--config json|ts] [--action OWNER/REPO@REF]'],
  description:
    'Writes what a project needs to test with tapedeck and vitest, in DIR (default: the current folder): ' +
    'tapedeck.config.json (or .ts), goldens/ with a .gitattributes for its line ends, test/tapedeck.test.ts ' +
    '(a screen test of bash), vitest.config.ts registering the matchers and the reporter, and ' +
    '.github/workflows/tapedeck.yml running tapedeck\'s GitHub Action. A file that exists is never ' +
    'overwritten: it is listed as skipped (for an existing vitest config, with what to add to it). ' +
    'Then `npx vitest run` writes the first golden.',
  options: {
    config: { type: 'string', arg: 'FORMAT', default: 'json', help: 'json (tapedeck.config.json) or ts (tapedeck.config.ts, needs typescript installed)' },
    action: { type: 'string', arg: 'REF', default: 'tapedeck/tapedeck@main', help: "the action the workflow uses: this repository's action.yml, at the ref you pin" },
  },
  positionals: { max: 1, message: 'takes at most one folder' },
  pathPositionals: true,
  async run({ values, positionals, io }) {
    if (values.config !== 'json' && values.config !== 'ts') throw usageError(`init: --config must be json or ts, not ${JSON.stringify(values.config)}`);
    const dir = resolve(io.cwd, positionals[0] ?? '.');
    const created: string[] = [];
    const skipped: string[] = [];
    const rel = (p: string) => relative(io.cwd, join(dir, p)) || '.';
    const put = (path: string, content: string, why = 'exists') => {
      if (existsSync(join(dir, path))) return void skipped.push(`${rel(path)} (${why})`);
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content, { flag: 'wx' });
      created.push(rel(path));
    };
    const config = CONFIG_NAMES.find((n) => existsSync(join(dir, n)));
    if (config) skipped.push(`tapedeck.config.${values.config} (${rel(config)} exists; one config file per project)`);
    else put(`tapedeck.config.${values.config}`, values.config === 'ts' ? CONFIG_TS : CONFIG_JSON);
    if (existsSync(join(dir, 'goldens'))) skipped.push(`${rel('goldens')}/ (exists)`);
    else {
      mkdirSync(join(dir, 'goldens'), { recursive: true });
      created.push(`${rel('goldens')}/`);
    }
    put('.gitattributes', GITATTRIBUTES);
    put('test/tapedeck.test.ts', EXAMPLE_TEST);
    const vitestConfig = VITEST_CONFIGS.find((n) => existsSync(join(dir, n)));
    if (vitestConfig && readFileSync(join(dir, vitestConfig), 'utf8').includes('tapedeck/vitest')) skipped.push(`${rel(vitestConfig)} (exists, registers tapedeck)`);
    else if (vitestConfig) {
      skipped.push(
        `vitest.config.ts (${rel(vitestConfig)} exists: add setupFiles: ['tapedeck/vitest'] and reporters: ['default', 'tapedeck/vitest/reporter'] to its test options)`,
      );
    } else put('vitest.config.ts', VITEST_CONFIG);
    put('.github/workflows/tapedeck.yml', workflow(values.action));
    for (const f of created) io.stdout.write(`created ${f}\n`);
    for (const f of skipped) io.stdout.write(`skipped ${f}\n`);
    io.stdout.write(`next: npx vitest run (writes the first golden under goldens/), then commit goldens/\n`);
    return 0;
  },
});
