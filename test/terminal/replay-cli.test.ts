import { afterAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCast, recordScript } from '../../src/index.js';
import { spawnTerminal } from '../../src/session/index.js';
import { ROOT, tapedeck, tapedeckInProcess, tempDir } from '../helpers/cli.js';
import { BASH, BASH_ENV } from '../helpers/terminal-tapes.js';

const { dir, cleanup } = tempDir('tapedeck-terminal-cli-');
afterAll(cleanup);

const GOLDENS = ['goldens/terminal/bash-echo.cast', 'goldens/terminal/less-numbers.cast', 'goldens/terminal/vim-notes.cast'];

/** A copy of a checked-in tape and the files it opens, in a scratch project (so --update can't touch the real ones). */
function scratchProject(name: string): string {
  const project = join(dir, name);
  mkdirSync(join(project, 'goldens/terminal'), { recursive: true });
  mkdirSync(join(project, 'test/fixtures/terminal'), { recursive: true });
  for (const f of [...GOLDENS, 'test/fixtures/terminal/notes.txt', 'test/fixtures/terminal/numbers.txt']) copyFileSync(join(ROOT, f), join(project, f));
  return project;
}

describe('tapedeck replay with terminal tapes', () => {
  it('replays the checked-in tapes cleanly with their recorded commands', async () => {
    const run = await tapedeckInProcess(['replay', 'goldens/terminal/*.cast']);
    expect(run.stderr).toMatch(/^ok +goldens\/terminal\/bash-echo\.cast \(4 steps, \d+ ms\)$/m);
    expect(run.stderr).toMatch(/^ok +goldens\/terminal\/vim-notes\.cast \(7 steps/m);
    expect(run.stderr).toMatch(/tapedeck: 3 tape\(s\), 16 step\(s\), 0 drift\(s\) in 0 tape\(s\)/);
    expect(run.code).toBe(0);
  });

  it('mixes protocol and terminal tapes in one run: CMD goes to the protocol tapes; --shard splits the sorted list', async () => {
    const args = ['replay', 'goldens/agent-server.ndjson', ...GOLDENS, '--json', '--json-summary', '--jobs', '2'];
    const all = await tapedeckInProcess([...args, '--', 'node', 'examples/agent-server.mjs']);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout.trim())).toMatchObject({ kind: 'summary', tapes: 4, pairs: 7, steps: 16, drifts: 0, exit_code: 0 });
    const shards = await Promise.all(['1/2', '2/2'].map((s) => tapedeckInProcess([...args, '--shard', s, '--', 'node', 'examples/agent-server.mjs'])));
    const counts = shards.map((r) => JSON.parse(r.stdout.trim()));
    expect(counts.map((c) => c.tapes)).toEqual([2, 2]);
    expect(counts[0].steps + counts[1].steps).toBe(16);
    expect(counts[0].pairs + counts[1].pairs).toBe(7);
    const noCommand = await tapedeckInProcess(['replay', 'goldens/agent-server.ndjson', GOLDENS[0]]);
    expect(noCommand.code).toBe(2);
    expect(noCommand.stderr).toMatch(/protocol tapes need the server command after --/);
  });

  it('a changed program drifts with exit 1, the step, the cast line, a screen diff and a seed-001 envelope', async () => {
    const otherPrompt = ['env', 'PS1=other> ', 'HISTFILE=', 'bash', '--norc', '--noprofile'];
    // In a scratch copy: a drifted replay leaves <tape>.new beside the tape.
    const project = scratchProject('changed-program');
    const run = await tapedeck(['replay', GOLDENS[0], '--bail', '--step-timeout-ms', '500', '--json', '--json-summary', '--', ...otherPrompt], { cwd: project });
    expect(run.code).toBe(1);
    const { events } = await readCast(join(project, GOLDENS[0]));
    const line = events.find((e) => e.code === 'i')!.line;
    expect(run.stderr).toContain(`DRIFT  ${GOLDENS[0]} (1 drift(s) in 4 steps)`);
    expect(run.stderr).toContain(`${GOLDENS[0]}:${line}: step 1: screen never matched the recording before input "echo hello\\r" ("echo hello", Enter) [TD1101]`);
    expect(run.stderr).toMatch(/^ {4}-demo\$ +│$/m);
    expect(run.stderr).toMatch(/^ {4}\+other> +│$/m);
    const [envelope, summary] = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const text = readFileSync(join(project, GOLDENS[0]), 'utf8');
    const byteStart = Buffer.byteLength(text.split('\n').slice(0, line - 1).join('\n')) + 1;
    expect(envelope).toMatchObject({
      schema_version: '1.0',
      code: 'TD1101',
      severity: 'error',
      span: { file: GOLDENS[0], line, col: 1, byte_start: byteStart, byte_end: byteStart + Buffer.byteLength(text.split('\n')[line - 1]) },
      see_also: ['TD1102', 'TD1103', 'docs/formats.md#diagnostic-envelopes'],
    });
    expect(envelope.prose).toMatch(/^step 1: input "echo hello\\r"/);
    expect(envelope.prose).toContain('--step-timeout-ms');
    expect(envelope.fix).toBeUndefined();
    expect(summary).toMatchObject({ kind: 'summary', tapes: 1, steps: 4, drifts: 1, exit_code: 1 });
    expect((await tapedeckInProcess(['explain', 'TD1105'])).stdout).toMatch(/exited/);
  });

  it('changed file content drifts at the right step; --update re-records the tape, which then replays clean', async () => {
    const project = scratchProject('update');
    writeFileSync(join(project, 'test/fixtures/terminal/notes.txt'), 'first line\nEDITED line\nthird line\n');
    const vim = 'goldens/terminal/vim-notes.cast';
    const before = readFileSync(join(project, vim), 'utf8');
    const drift = await tapedeckInProcess(['replay', vim, '--step-timeout-ms', '500', '--bail'], { cwd: project });
    expect(drift.code).toBe(1);
    expect(drift.stderr).toMatch(/vim-notes\.cast:\d+: step 1: checkpoint marker "opened": screen differs \[TD1102\]/);
    expect(drift.stderr).toContain('+EDITED line');

    const update = await tapedeck(['replay', vim, '--step-timeout-ms', '500', '--update'], { cwd: project });
    expect(update.code).toBe(0);
    expect(update.stderr).toMatch(/^updated goldens\/terminal\/vim-notes\.cast/m);
    expect(update.stderr).toContain('re-recorded the output of goldens/terminal/vim-notes.cast from the live run');
    const after = readFileSync(join(project, vim), 'utf8');
    expect(after.split('\n')[0]).toBe(before.split('\n')[0]);
    expect(after).toContain('EDITED line');
    const steps = (text: string) => text.split('\n').slice(1).filter(Boolean).map((l) => JSON.parse(l)).filter((e) => ['i', 'm', 'r'].includes(e[1])).map((e) => e.slice(1));
    expect(steps(after)).toEqual(steps(before));
    const clean = await tapedeckInProcess(['replay', vim], { cwd: project });
    expect(clean.code).toBe(0);
  });

  it('exit 2 for a malformed cast (file:line), a cast without a command, and a bad mask', async () => {
    const bad = join(dir, 'bad.cast');
    writeFileSync(bad, '{"version": 3, "term": {"cols": 20, "rows": 4}}\n[0.1, "o", "hi"]\n[0.1, "r", "wide"]\n');
    const malformed = await tapedeckInProcess(['replay', bad, GOLDENS[0]]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toBe(`tapedeck: ${bad}:3: resize event data must be "COLSxROWS" with sizes from 1 to 10000, got "wide"\n`);

    const noCommand = join(dir, 'asciinema-2.2-no-size.cast');
    copyFileSync(join(ROOT, 'test/fixtures/casts/asciinema-2.2-no-size.cast'), noCommand);
    const missing = await tapedeckInProcess(['replay', noCommand]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/does not record its command; give it after --/);

    const rect = await tapedeckInProcess(['replay', GOLDENS[0], '--mask-rect', '1,2']);
    expect(rect.code).toBe(2);
    expect(rect.stderr).toMatch(/--mask-rect expects ROW,COL,WIDTH\[,HEIGHT\]/);
    const project = join(dir, 'badconfig');
    mkdirSync(project);
    writeFileSync(join(project, 'tapedeck.config.json'), '{\n  "mask": [\n    "ok",\n    {"row": 1, "col": -1, "width": 3}\n  ]\n}\n');
    const config = await tapedeckInProcess(['replay', join(ROOT, GOLDENS[0])], { cwd: project });
    expect(config.code).toBe(2);
    expect(config.stderr).toMatch(/^tapedeck: tapedeck\.config\.json:4: "mask": a rectangle needs "row" and "col"/);
  });
});

describe('masks and foreign recordings', () => {
  it('htop replays clean only with its clock, load, meters and process list masked (regexes, rectangles, config)', async () => {
    const home = join(dir, 'htop-home');
    mkdirSync(home);
    const cast = join(dir, 'htop.cast');
    await recordScript({
      out: cast, command: 'htop', env: { HOME: home }, rows: 24, cols: 80,
      steps: [{ waitFor: 'F10Quit' }, { pause: 300 }, { marker: 'main' }, { press: 'F1' }, { waitFor: 'Process state' }, { marker: 'help' }, { type: 'q' }, { waitFor: 'F10Quit' }, { marker: 'back' }, { type: 'q' }],
    });
    const env = { HOME: home };
    const unmasked = await tapedeckInProcess(['replay', cast, '--trust-tape', '--step-timeout-ms', '500', '--bail'], { env }); // outside this project
    expect(unmasked.code).toBe(1);
    expect(unmasked.stderr).toMatch(/Uptime|Load average|%/);
    const flags = ['--mask', 'Load average: .*', '--mask', 'Uptime: .*', '--mask-rect', '1,0,40,4', '--mask-rect', '8,0,80,15'];
    writeFileSync(join(dir, 'tapedeck.config.json'), JSON.stringify({ mask: ['Tasks: .*'] }));
    for (let i = 0; i < 3; i++) {
      const masked = await tapedeckInProcess(['replay', cast, ...flags, '--step-timeout-ms', '3000'], { env, cwd: dir });
      expect(masked.stderr).toMatch(/^ok +.*htop\.cast \(7 steps/m);
      expect(masked.code).toBe(0);
    }
  });

  it('replays a cast recorded by asciinema rec --stdin (v2 with "i" events)', async () => {
    const cast = join(dir, 'asciinema.cast');
    const env = { ...BASH_ENV, ASCIINEMA_CONFIG_HOME: join(dir, 'asciinema-config') };
    const rec = spawnTerminal('asciinema', ['rec', '--stdin', '-q', '-c', BASH.join(' '), cast], { rows: 12, cols: 60, env });
    try {
      await rec.waitForText('demo$');
      rec.type('echo from asciinema\r');
      await rec.waitForText(/^from asciinema\ndemo\$/m);
      rec.type('exit\r');
      await rec.waitForExit({ timeoutMs: 10_000 });
    } finally {
      await rec.dispose();
    }
    const { header, events } = await readCast(cast);
    expect(header.version).toBe(2);
    expect(events.filter((e) => e.code === 'i').map((e) => e.data)).toEqual(['echo from asciinema\r', 'exit\r']);
    for (let i = 0; i < 3; i++) {
      const run = await tapedeckInProcess(['replay', cast, '--', ...BASH], { env: BASH_ENV });
      expect(run.stderr).toMatch(/^ok +.*asciinema\.cast \(3 steps/m);
      expect(run.code).toBe(0);
    }
    const drift = await tapedeckInProcess(['replay', cast, '--step-timeout-ms', '500', '--', ...BASH], { env: { ...BASH_ENV, PS1: '% ' } });
    expect(drift.code).toBe(1);
    expect(drift.stderr).toMatch(/asciinema\.cast:\d+: step 1: screen never matched the recording before input "echo from asciinema\\r"/);
  });
});

describe('a tape from anywhere', () => {
  it('takes only terminal and locale settings from the header env: nothing there runs code', async () => {
    const project = join(dir, 'evil');
    mkdirSync(project, { recursive: true });
    const pwned = join(project, 'PWNED');
    const header = {
      version: 2, width: 40, height: 5, command: 'bash --norc --noprofile -c true',
      env: { 'BASH_FUNC_true%%': `() { touch ${pwned}; }`, BASH_ENV: join(project, 'x.sh'), PATH: project, LANG: 'C.UTF-8' },
    };
    writeFileSync(join(project, 'x.sh'), `touch ${pwned}\n`);
    writeFileSync(join(project, 'evil.cast'), `${JSON.stringify(header)}\n[0.1, "x", "0"]\n`);
    // Even run as trusted (the recorded command is run), the header's env is not taken.
    const run = await tapedeckInProcess(['replay', 'evil.cast', '--trust-tape', '--step-timeout-ms', '500'], { cwd: project });
    expect(run.code, run.stderr).toBe(0);
    expect(() => readFileSync(pwned)).toThrow();
  });
});
