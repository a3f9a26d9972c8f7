import { afterAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCast, recordScript, type ScriptStep, replayTerminal } from '../../src/index.js';
import { ROOT, tempDir, tapedeckInProcess } from '../helpers/cli.js';
import { BASH } from '../helpers/terminal-tapes.js';

/** Replays that match what was recorded: where, with which HOME, at which size, and how --update and summaries behave. */
const { dir, cleanup } = tempDir('tapedeck-replay-fidelity-');
afterAll(cleanup);

function sub(name: string): string {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  return d;
}

async function record(d: string, command: string[], steps: ScriptStep[], env: Record<string, string | undefined> = {}, size = { rows: 12, cols: 50 }): Promise<string> {
  const out = join(d, 'tape.cast');
  await recordScript({ out, command: command[0], args: command.slice(1), cwd: d, env, ...size, steps });
  return out;
}

/** Times of the step events (inputs, markers, resizes) of a cast, in seconds. */
async function stepTimes(cast: string): Promise<number[]> {
  const { events } = await readCast(cast);
  return events.filter((e) => e.code === 'i' || e.code === 'm' || e.code === 'r').map((e) => e.time);
}

describe.concurrent('where a replay runs', () => {
  it('a tape records its directory and replays there from anywhere (found from the tape first); --cwd overrides', async () => {
    const project = sub('project');
    writeFileSync(join(project, 'script.sh'), 'echo "script ran 😀"\n');
    const cast = await record(project, ['bash', './script.sh'], []);
    const header = JSON.parse(readFileSync(cast, 'utf8').split('\n')[0]);
    expect(header.tapedeck).toEqual({ argv: ['bash', './script.sh'], cwd: project, cwdFromTape: '.' });
    // A copy of the project (another checkout) replays in the copy, not where it was recorded.
    const copy = join(dir, 'copy');
    cpSync(project, copy, { recursive: true });
    writeFileSync(join(project, 'script.sh'), 'exit 3\n');
    // Run from the repository root: the script is found in the recorded directory.
    const copied = join(copy, 'tape.cast');
    const [here, elsewhere] = await Promise.all([tapedeckInProcess(['replay', copied, '--trust-tape'], { cwd: ROOT }), tapedeckInProcess(['replay', copied, '--trust-tape', '--cwd', sub('empty')], { cwd: ROOT })]);
    expect(here.stderr).toMatch(/^ok /m);
    expect(here.code).toBe(0);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('exit status differs: recorded exit 0, live exit 127');
  });

  it('replays get a fresh HOME each time (--home inherit keeps the caller\'s)', async () => {
    const d = sub('home');
    const program = ['sh', '-c', 'if [ -e "$HOME/.state" ]; then echo "seen before"; else echo "first run ✨"; fi; : > "$HOME/.state"'];
    const recHome = sub('home/recording-home');
    const cast = await record(d, program, [], { HOME: recHome });
    const callerHome = sub('home/caller');
    const env = { HOME: callerHome };
    const bad = tapedeckInProcess(['replay', cast, '--trust-tape', '--home', 'mine']);
    // Fresh (the default): the state the first replay saved is gone for the second.
    for (let i = 0; i < 2; i++) expect((await tapedeckInProcess(['replay', cast, '--trust-tape'], { env })).code).toBe(0);
    // The caller's HOME: the first run leaves state behind and the second one sees it.
    expect((await replayTerminal(cast, { home: 'inherit', env })).drifts).toEqual([]);
    const second = await tapedeckInProcess(['replay', cast, '--trust-tape', '--home', 'inherit'], { env });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('seen before');
    expect((await bad).code).toBe(2);
    expect((await bad).stderr).toContain('--home takes fresh or inherit');
  });

  it('a python curses program follows a recorded resize to 30x100 on replay', async () => {
    const d = sub('curses');
    const cast = await record(d, ['python3', '-I', join(ROOT, 'test/fixtures/parity/curses_size.py')], [
      { waitFor: 'size 24x80' },
      { waitFor: '🚀 bottom line|' },
      { resize: { rows: 30, cols: 100 } },
      { waitFor: 'size 30x100' },
      { marker: 'resized' },
      { type: 'q' },
    ], {}, { rows: 24, cols: 80 });
    const result = await replayTerminal(cast);
    expect(result.drifts).toEqual([]);
    const marker = result.steps.find((s) => s.kind === 'marker')!;
    expect(marker.actual).toContain('size 30x100 😀 漢字|');
  });
});

describe.concurrent('--update', () => {
  it('keeps every recorded interval (within 10 ms), the header, comments and theme', async () => {
    const d = sub('update');
    const steps: ScriptStep[] = [{ waitFor: 'one$ ' }];
    // Keystrokes 60–370 ms apart, as a person types.
    for (const [i, pause] of [60, 370, 120, 250, 90].entries()) steps.push({ pause }, { type: 'abcde'[i] });
    steps.push({ marker: 'typed' }, { type: '\r' }, { waitFor: /one\$ $/m }, { type: 'exit\r' });
    const cast = await record(d, BASH, steps, { PS1: 'one$ ', HISTFILE: '' });
    // A header with a theme and a comment line, as asciinema 3 writes them.
    const lines = readFileSync(cast, 'utf8').split('\n');
    const header = JSON.parse(lines[0]);
    header.term.theme = { fg: '#d0d0d0', bg: '#102030', palette: '#000000:#aa0000:#00aa00:#aa5500:#0000aa:#aa00aa:#00aaaa:#aaaaaa' };
    lines[0] = JSON.stringify(header);
    lines.splice(3, 0, '# typed by hand');
    writeFileSync(cast, lines.join('\n'));
    const before = await stepTimes(cast);
    const unchanged = readFileSync(cast, 'utf8');
    // Unchanged: nothing is rewritten.
    expect((await replayTerminal(cast, { update: true, env: { PS1: 'one$ ', HISTFILE: '' } })).updated).toBe(false);
    expect(readFileSync(cast, 'utf8')).toBe(unchanged);
    // Changed prompt: every step waits for a screen that never comes, then the tape is re-recorded.
    const result = await replayTerminal(cast, { update: true, stepTimeoutMs: 300, env: { PS1: 'two$ ', HISTFILE: '' } });
    expect(result.updated).toBe(true);
    const text = readFileSync(cast, 'utf8');
    expect(text.split('\n')[0]).toBe(lines[0]);
    expect(text).toContain('\n# typed by hand\n');
    expect(text).toContain('two$ ');
    const after = await stepTimes(cast);
    expect(after.length).toBe(before.length);
    const off = after.map((t, i) => Math.abs(t - before[i]) * 1000);
    expect(Math.max(...off)).toBeLessThan(10);
  });
});

describe.concurrent('drift summaries', () => {
  it('collapse repeated drifts into one line; --json still has one envelope per drift', async () => {
    const d = sub('repeat');
    // The version is printed before the first prompt, so the first drift is that line as soon as bash
    // has started, whatever the load (an echoed command was once still missing after 5 s).
    const steps: ScriptStep[] = [{ waitFor: /version 1\n\$ $/ }];
    // Each key's echo waited for: under load it can come after the recorder's quiet spell, and a screen
    // recorded mid-echo makes that step's difference another one than the version line.
    let typed = '';
    for (const ch of 'abcd') steps.push({ type: ch }, { waitFor: new RegExp(`\\$ ${(typed += ch)}$`) });
    steps.push({ type: '\x15exit\r' });
    // (PS1 is set in the exec: a non-interactive bash drops the one it inherits.)
    const command = [...BASH, '-c', `echo "version $V"; PS1='$ ' exec ${BASH.join(' ')}`];
    const cast = await record(d, command, steps, { HISTFILE: '', V: '1' });
    const env = { HISTFILE: '', V: '2' };
    const [human, json] = await Promise.all([
      tapedeckInProcess(['replay', cast, '--trust-tape', '--step-timeout-ms', '5000'], { env }),
      tapedeckInProcess(['replay', cast, '--trust-tape', '--step-timeout-ms', '5000', '--json', '--json-summary'], { env }),
    ]);
    expect(human.code).toBe(1);
    // The first difference in full, then one line for the steps that repeat it.
    expect(human.stderr.match(/-version 1/g)?.length, human.stderr).toBe(1);
    expect(human.stderr).toMatch(/^ {2}steps \d+–\d+: the same difference \(\d+ more drifts\)$/m);
    const envelopes = json.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const summary = envelopes.at(-1);
    expect(envelopes.length - 1).toBe(summary.drifts);
    expect(summary.drifts).toBeGreaterThan(3);
  });
});
