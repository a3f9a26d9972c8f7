import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { ROOT, tapedeck, tapedeckInProcess } from '../helpers/cli.js';

/** The command definitions (cli/command.ts) in-process: one help style, strict options, main() reentrant. */
const COMMANDS = ['record', 'replay', 'report', 'serve', 'snapshot', 'screenshot', 'doctor', 'export', 'review', 'fix', 'explain', 'version', 'vhs'];
type CommandModule = typeof import('../../src/cli/commands/explain.js');
const load = (name: string) => import(pathToFileURL(join(ROOT, `dist/cli/commands/${name}.js`)).href) as Promise<CommandModule>;

describe('every command is defined once: help, options, errors', () => {
  for (const name of COMMANDS) {
    test(`${name} --help documents every option it accepts, and an unknown option is exit 2 naming ${name}`, async () => {
      const { command } = await load(name);
      const [help, short, unknown] = await Promise.all([
        tapedeckInProcess([name, '--help']),
        tapedeckInProcess([name, '-h']),
        tapedeckInProcess([name, '--no-such-option']),
      ]);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^usage: tapedeck ${name}\\b`));
      expect(short.stdout).toBe(help.stdout);
      for (const option of [...Object.keys(command.definition.options), 'help']) expect(help.stdout).toMatch(new RegExp(`^  (-\\w, )?--${option}\\b`, 'm'));
      expect(help.stderr).toBe('');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toBe(`tapedeck: ${name}: unknown option --no-such-option (see tapedeck ${name} --help)\n`);
    });
  }

  test('--help wins over any other mistake on the line, but not as the value of an option', async () => {
    const help = await tapedeckInProcess(['export', '--bogus', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: tapedeck export /);
    // After -- it belongs to the command under test.
    const passed = await tapedeckInProcess(['record', '--', 'ls', '--help']);
    expect(passed.code).toBe(2);
    expect(passed.stderr).toContain('record: --out FILE is required');
  });

  test('no command is usage on stdout and exit 2; help is exit 0; an unknown command is exit 2 with the list', async () => {
    const [none, help, unknown] = await Promise.all([tapedeckInProcess([]), tapedeckInProcess(['help']), tapedeckInProcess(['frobnicate'])]);
    expect(none.code).toBe(2);
    expect(none.stdout).toMatch(/^usage: tapedeck <command> \[options\]/);
    for (const name of [...COMMANDS, 'session']) expect(none.stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(none.stdout);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^tapedeck: unknown command "frobnicate"\n\nusage: tapedeck <command>/);
  });

  test('record takes one definition for both kinds: an option of the other kind is refused by name', async () => {
    const cases: Array<[string[], string]> = [
      [['record', '--out', 'x.cast', '--boundary', 'done', '--', 'true'], 'record: --boundary applies to protocol tapes (.ndjson/.jsonl)'],
      [['record', '--out', 'x.cast', '--transport', 'http', '--', 'true'], 'record: --transport applies to protocol tapes (.ndjson/.jsonl)'],
      [['record', '--out', 'x.ndjson', '--rows', '5', '--', 'true'], 'record: --rows applies to terminal tapes (.cast)'],
      [['record', '--out', 'x.ndjson', '--listen', '127.0.0.1:0', '--', 'true'], 'record: --listen applies to --transport http or unix'],
      [['record', '--out', 'x.ndjson', '--transport', 'http', '--grace-ms', '5', '--', 'true'], 'record: --grace-ms applies to --transport stdio'],
      [['record', '--out', 'x.ndjson', '--transport', 'carrier-pigeon', '--', 'true'], 'record: --transport must be stdio, http or unix, got "carrier-pigeon"'],
      [['record', '--out', 'x.txt', '--', 'true'], 'record: cannot tell the tape kind of "x.txt"'],
      [['record', '--out', 'x.ndjson', 'stray', '--', 'true'], 'record: unexpected argument "stray" (the command goes after --)'],
      [['record', '--out', 'x.cast', '--format', 'v9', '--', 'true'], 'record: --format expects v2 or v3, got "v9"'],
    ];
    const results = await Promise.all(cases.map(([args]) => tapedeckInProcess(args)));
    results.forEach((r, i) => {
      expect(r.code, cases[i][0].join(' ')).toBe(2);
      expect(r.stderr).toContain(cases[i][1]);
    });
  });

  test('report: --out is the report and is required; replay options are accepted, replay-only ones refused', async () => {
    const [missing, reporter] = await Promise.all([tapedeckInProcess(['report', 'x.ndjson']), tapedeckInProcess(['report', '--out', 'r.html', '--reporter', 'junit', 'x.ndjson'])]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('report: --out report.html is required');
    expect(reporter.code).toBe(2);
    expect(reporter.stderr).toContain('report: unknown option --reporter');
  });
});

describe('main(argv, io) in-process', () => {
  test('an error that is not a TapedeckError is an internal error: exit 2, one line, no stack', async () => {
    const { main } = (await import(pathToFileURL(join(ROOT, 'dist/cli/run.js')).href)) as typeof import('../../src/cli/run.js');
    const err: string[] = [];
    const stdout = {
      write(): boolean {
        throw new Error('the disk fell off');
      },
    };
    const code = await main(['explain'], { stdout, stderr: { write: (c: string | Uint8Array) => err.push(String(c)) > 0 }, env: {}, cwd: ROOT });
    expect(code).toBe(2);
    expect(err.join('')).toBe('tapedeck: internal error: the disk fell off\n');
  });

  test('runs many times in one process without exiting or leaving listeners', async () => {
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'exit'] as const;
    const before = signals.map((s) => process.listenerCount(s));
    const runs = await Promise.all(Array.from({ length: 20 }, (_, i) => tapedeckInProcess(i % 2 ? ['explain', 'TD1001'] : ['version', '--bogus'])));
    expect(runs.map((r) => r.code)).toEqual(Array.from({ length: 20 }, (_, i) => (i % 2 ? 0 : 2)));
    expect(runs[1].stdout).toMatch(/^TD1001: /);
    expect(signals.map((s) => process.listenerCount(s))).toEqual(before);
  });

  test('main(argv, io) works in io.cwd: tapes, --out, --config and the server\'s folder are the run\'s, not this process\'s', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tapedeck-io-cwd-')));
    try {
      // A server that says where it runs; a config that ignores nothing but must be found in dir.
      const server = ['node', '-e', 'require("readline").createInterface({ input: process.stdin }).on("line", (l) => console.log(JSON.stringify({ kind: "result", cwd: process.cwd(), echo: JSON.parse(l) }) + "\\n" + JSON.stringify({ kind: "done", exit_code: 0 })))'];
      writeFileSync(join(dir, 'normalise.json'), JSON.stringify({ ignore: ['$.nothing'] }));
      const recorded = await tapedeckInProcess(['record', '--out', 'cwd.ndjson', '--', ...server], { cwd: dir, input: '{"op":"where"}\n' });
      expect(recorded.code, recorded.stderr).toBe(0);
      expect(existsSync(join(ROOT, 'cwd.ndjson'))).toBe(false);
      expect(JSON.parse(JSON.parse(readFileSync(join(dir, 'cwd.ndjson'), 'utf8')).response.split('\n')[0]).cwd).toBe(dir);
      const replayed = await tapedeckInProcess(['replay', 'c*.ndjson', '--config', 'normalise.json', '--reporter', 'junit', '--out', 'junit.xml', '--', ...server], { cwd: dir });
      expect(replayed.code, replayed.stderr).toBe(0);
      expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('tests="1" failures="0"');
      // The same server run from another folder drifts: the check above could fail.
      const elsewhere = await tapedeckInProcess(['replay', join(dir, 'cwd.ndjson'), '--', ...server], { cwd: ROOT });
      expect(elsewhere.code).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the bin prints the same help, and exits with the same code, as main() returns', async () => {
    const [bin, inProcess] = await Promise.all([tapedeck(['serve', '--help']), tapedeckInProcess(['serve', '--help'])]);
    expect(bin.code).toBe(0);
    expect(bin.stdout).toBe(inProcess.stdout);
  });
});
