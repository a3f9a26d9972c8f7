import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCast, recordScript, replayTerminal, type TerminalTapeResult, driftToEnvelope } from '../../src/index.js';
import { describeInput } from '../../src/replayer/terminal/describe.js';
import { splitCommandLine } from '../../src/replayer/terminal/command.js';
import { trackedCount } from '../../src/session/index.js';
import { tempDir } from '../helpers/cli.js';
import { runs } from '../helpers/soak.js';
import { BASH, BASH_ENV, recordBash, recordLess, recordPython, recordVim, writeNotes, writeNumbered, type Recorded } from '../helpers/terminal-tapes.js';
import '../../src/matchers/index.js';

const { dir, cleanup } = tempDir('tapedeck-terminal-replay-');
afterAll(cleanup);

function replay(rec: Recorded, extra: Parameters<typeof replayTerminal>[1] = {}): Promise<TerminalTapeResult> {
  return replayTerminal(rec.cast, { env: rec.env, cwd: rec.cwd, ...extra });
}

/** The cast lines of the tape's inputs and markers, in order (what --update must keep). */
async function stepEvents(cast: string): Promise<string[]> {
  const { events } = await readCast(cast);
  return events.filter((e) => e.code === 'i' || e.code === 'm' || e.code === 'r').map((e) => `${e.code} ${JSON.stringify(e.data)}`);
}

async function lineOf(cast: string, code: string, data: string): Promise<number> {
  const { events } = await readCast(cast);
  return events.find((e) => e.code === code && e.data === data)!.line;
}

/** Repeated replays catch races; the full count runs under TAPEDECK_SOAK=1. */
const REPLAYS = runs(2, 20);

describe('replayTerminal against real programs', () => {
  const programs: [string, (d: string) => Promise<Recorded>][] = [
    ['bash', (d) => recordBash(d)],
    ['vim', (d) => recordVim(d)],
    ['less', (d) => recordLess(d)],
    ['python3 REPL', (d) => recordPython(d)],
  ];
  for (const [name, recordIt] of programs) {
    // How fast a replay is lives in bench/terminal-replay.mjs (a ratio), never in a test.
    it(`replays a recorded ${name} session ${REPLAYS} times, all clean`, async () => {
      const sub = join(dir, name.replace(/\W/g, ''));
      mkdirSync(sub);
      const rec = await recordIt(sub);
      const { events } = await readCast(rec.cast);
      expect(events.some((e) => e.code === 'i')).toBe(true);
      expect(events.some((e) => e.code === 'm')).toBe(true);
      for (let i = 0; i < REPLAYS; i++) {
        // A clean step ends as soon as the screen matches; the room is for a loaded machine's slow start.
        const result = await replay(rec, { stepTimeoutMs: 30_000 });
        expect(result.drifts, `run ${i + 1}`).toEqual([]);
        expect(result.steps.every((s) => s.status === 'ok')).toBe(true);
      }
      expect(trackedCount()).toBe(0); // every replayed program was stopped
    });
  }
});

describe('drift', () => {
  it('a changed bash prompt drifts at the first input, naming the step, the keys and the cast line', async () => {
    const rec = await recordBash(dir, 'bash-drift');
    const result = await replay(rec, { env: { ...BASH_ENV, PS1: 'other> ' }, stepTimeoutMs: 800, bail: true });
    expect(result.drifts).toHaveLength(1);
    const [d] = result.drifts;
    expect(d).toMatchObject({ code: 'TD1101', tape: rec.cast, pair: 1, request: 'input "echo hello\\r" ("echo hello", Enter)' });
    expect(d.line).toBe(await lineOf(rec.cast, 'i', 'echo hello\r'));
    expect(d.recordedLine).toBe(readFileSync(rec.cast, 'utf8').split('\n')[d.line - 1]);
    expect(readFileSync(rec.cast).subarray(d.byteStart, d.byteEnd).toString()).toBe(d.recordedLine);
    expect(d.details.join('\n')).toMatch(/^-demo\$ +│$/m);
    expect(d.details.join('\n')).toMatch(/^\+other> +│$/m);
    expect(d.expected).toContain('demo$');
    expect(d.actual).toContain('other>');
    // bail: nothing after the drift ran
    expect(result.steps.slice(1).every((s) => s.status === 'not-run')).toBe(true);

    const envelope = driftToEnvelope(d);
    expect(envelope).toMatchObject({ schema_version: '1.0', code: 'TD1101', span: { file: rec.cast, line: d.line, col: 1, byte_start: d.byteStart, byte_end: d.byteEnd } });
    expect(envelope.prose).toContain('step 1: input "echo hello\\r"');
    expect(envelope.fix).toBeUndefined();
  });

  it('without bail the input is sent anyway and the replay goes on to the end', async () => {
    const rec = await recordBash(dir, 'bash-continue');
    const started = performance.now();
    // A long step timeout keeps the two behaviours far apart whatever the load: the first drift waits it
    // out (10 s); had the later steps waited too, that would be 40 s more instead of about 2 s.
    const result = await replay(rec, { env: { ...BASH_ENV, PS1: 'other> ' }, stepTimeoutMs: 10_000 });
    expect(result.drifts.map((d) => [d.code, d.pair])).toEqual([
      ['TD1101', 1],
      ['TD1102', 2],
      ['TD1101', 3],
      ['TD1101', 4],
      ['TD1103', 5],
    ]);
    expect(result.exit?.live).toEqual({ exitCode: 3, signal: null }); // every input reached bash
    // The live run as a cast, for reports: the tape's inputs, the live prompt and exit.
    expect(result.liveCast).toContain('"i","printf');
    expect(result.liveCast).toContain('other> ');
    expect(result.liveCast).toContain('"x","3"');
    expect(performance.now() - started).toBeLessThan(30_000); // later steps give up once the screen sits still
  });

  it('changed file content drifts at the first checkpoint in vim and in less', async () => {
    mkdirSync(join(dir, 'v'));
    const vim = await recordVim(join(dir, 'v'));
    writeNotes(vim.cwd, 'first line\nCHANGED line\nthird line\n');
    const v = await replay(vim, { stepTimeoutMs: 800, bail: true });
    expect(v.drifts).toHaveLength(1);
    expect(v.drifts[0]).toMatchObject({ code: 'TD1102', pair: 1, request: 'marker "opened"', line: await lineOf(vim.cast, 'm', 'opened') });
    expect(v.drifts[0].details).toContain('-second line                                       │');
    expect(v.drifts[0].details).toContain('+CHANGED line                                      │');

    mkdirSync(join(dir, 'l'));
    const less = await recordLess(join(dir, 'l'));
    writeNumbered(less.cwd, 'row');
    const l = await replay(less, { stepTimeoutMs: 800, bail: true });
    expect(l.drifts.map((d) => [d.code, d.pair, d.request])).toEqual([['TD1102', 1, 'marker "top"']]);
  });

  it('a program that exits early is drift at the step it could not take; a different exit status is drift at the end', async () => {
    const rec = await recordBash(dir, 'bash-exit');
    const early = await replay(rec, { command: ['bash', '--norc', '--noprofile', '-c', 'printf "bye"; exit 0'], stepTimeoutMs: 800 });
    expect(early.drifts.map((d) => d.code)).toEqual(['TD1105']);
    expect(early.drifts[0].pair).toBe(1);
    expect(early.steps.at(-1)!.status).toBe('not-run');

    const { events } = await readCast(rec.cast);
    const text = readFileSync(rec.cast, 'utf8').replace(/"x","3"/, '"x","4"');
    const other = join(dir, 'bash-exit-4.cast');
    writeFileSync(other, text);
    expect(events.at(-1)).toMatchObject({ code: 'x', data: '3' });
    const status = await replayTerminal(other, { env: rec.env, cwd: rec.cwd });
    expect(status.drifts.map((d) => [d.code, d.title])).toEqual([['TD1104', 'exit status differs: recorded exit 4, live exit 3']]);
  });
});

describe('update, realtime, resize', () => {
  it('--update re-records the output, keeps inputs, markers and header, and then replays clean', async () => {
    mkdirSync(join(dir, 'u'));
    const rec = await recordVim(join(dir, 'u'));
    const before = await stepEvents(rec.cast);
    const header = readFileSync(rec.cast, 'utf8').split('\n')[0];
    writeNotes(rec.cwd, 'first line\nnew text\nthird line\nfourth line\n');
    const updated = await replay(rec, { update: true, stepTimeoutMs: 800 });
    expect(updated.drifts.length).toBeGreaterThan(0);
    expect(updated.updated).toBe(true);
    expect(readFileSync(rec.cast, 'utf8').split('\n')[0]).toBe(header);
    expect(await stepEvents(rec.cast)).toEqual(before);
    const { events } = await readCast(rec.cast);
    expect(events.at(-1)).toMatchObject({ code: 'x', data: '0' });
    for (let i = 0; i < 3; i++) expect((await replay(rec)).drifts).toEqual([]);
  });

  it('writePending leaves the re-recorded tape beside it as .new and the tape untouched', async () => {
    mkdirSync(join(dir, 'p'));
    const rec = await recordLess(join(dir, 'p'));
    const original = readFileSync(rec.cast, 'utf8');
    writeNumbered(rec.cwd, 'entry');
    const result = await replay(rec, { writePending: true, stepTimeoutMs: 500 });
    expect(result.pendingPath).toBe(`${rec.cast}.new`);
    expect(readFileSync(rec.cast, 'utf8')).toBe(original);
    expect(readFileSync(`${rec.cast}.new`, 'utf8')).toContain('entry 1');
    expect((await replayTerminal(`${rec.cast}.new`, { env: rec.env, cwd: rec.cwd })).drifts).toEqual([]);
  });

  it('--realtime honours the recorded pauses; the default does not wait for them', async () => {
    const cast = join(dir, 'paused.cast');
    await recordScript({
      out: cast, command: BASH[0], args: BASH.slice(1), env: BASH_ENV, rows: 8, cols: 40,
      steps: [{ waitFor: 'demo$' }, { pause: 400 }, { type: 'echo a\r' }, { waitFor: 'a\ndemo$' }, { pause: 400 }, { type: 'exit\r' }],
    });
    const slow = await replayTerminal(cast, { env: BASH_ENV, realtime: true });
    expect(slow.drifts).toEqual([]);
    expect(slow.recordedMs).toBeGreaterThan(800);
    expect(slow.durationMs).toBeGreaterThan(800);
    // The same tape with a 40 s pause before its first input: replayed by default it
    // takes far less than the pause, however loaded the machine (no bound near the work).
    const paused = join(dir, 'paused-long.cast');
    const lines = readFileSync(cast, 'utf8').trimEnd().split('\n');
    const first = lines.findIndex((l, i) => i > 0 && !l.startsWith('#') && JSON.parse(l)[1] === 'i');
    const event = JSON.parse(lines[first]);
    lines[first] = JSON.stringify([event[0] + 40, ...event.slice(1)]);
    writeFileSync(paused, `${lines.join('\n')}\n`);
    const fast = await replayTerminal(paused, { env: BASH_ENV });
    expect(fast.drifts).toEqual([]);
    expect(fast.recordedMs).toBeGreaterThan(40_000);
    expect(fast.durationMs).toBeLessThan(20_000);
  });

  it('replays resizes: the program sees the recorded size change', async () => {
    const cast = join(dir, 'resize.cast');
    await recordScript({
      out: cast, command: BASH[0], args: BASH.slice(1), env: BASH_ENV, rows: 8, cols: 40,
      steps: [{ waitFor: 'demo$' }, { resize: { rows: 10, cols: 50 } }, { type: 'tput cols; tput lines\r' }, { waitFor: '10\ndemo$' }, { marker: 'sized' }, { type: 'exit\r' }],
    });
    const result = await replayTerminal(cast, { env: BASH_ENV });
    expect(result.drifts).toEqual([]);
    expect(result.steps.map((s) => s.kind)).toEqual(['resize', 'input', 'marker', 'input', 'end']);
    expect(result.steps[2].actual).toMatch(/^50 +│\n10 +│$/m);
  });
});

describe('toReplayCleanly on a .cast', () => {
  it('passes on a clean tape, fails with the drift on a changed one, and re-records under update mode all', async () => {
    mkdirSync(join(dir, 'm'));
    const rec = await recordVim(join(dir, 'm'));
    await expect(rec.cast).toReplayCleanly({ cwd: rec.cwd });
    await expect(rec.cast).toReplayCleanly(['vim', '-u', 'NONE', '-i', 'NONE', '-n', 'notes.txt'], { cwd: rec.cwd });
    writeNotes(rec.cwd, 'something else\n');
    const failure = await expect(rec.cast).toReplayCleanly({ cwd: rec.cwd, stepTimeoutMs: 500, bail: true }).then(() => undefined, (err: Error) => err);
    expect(failure?.message).toMatch(/step 1: checkpoint marker "opened": screen differs \[TD1102\]/);
    await expect(rec.cast).not.toReplayCleanly({ cwd: rec.cwd, stepTimeoutMs: 500, bail: true });
    process.env.TAPEDECK_UPDATE = 'all';
    try {
      await expect(rec.cast).toReplayCleanly({ cwd: rec.cwd, stepTimeoutMs: 500, bail: true }); // update replays to the end anyway
    } finally {
      delete process.env.TAPEDECK_UPDATE;
    }
    await expect(rec.cast).toReplayCleanly({ cwd: rec.cwd });
  });
});

describe('pieces', () => {
  it('names recorded input by its bytes and keys', () => {
    expect(describeInput(Buffer.from('\r'))).toBe('input "\\r" (Enter)');
    expect(describeInput(Buffer.from('ls'))).toBe('input "ls"');
    expect(describeInput(Buffer.from(':wq\r'))).toBe('input ":wq\\r" (":wq", Enter)');
    expect(describeInput(Buffer.from('\x1b[A\x1bOB\x03'))).toBe('input "\\e[A\\eOB\\x03" (Up, Down, ctrl+c)');
    expect(describeInput(Buffer.from('\x1bx'))).toBe('input "\\ex" (alt+x)');
  });

  it('splits a recorded command line without a shell and refuses shell syntax', () => {
    expect(splitCommandLine(`vim -u NONE 'my file.txt' "a \\"b\\"" c\\ d`)).toEqual(['vim', '-u', 'NONE', 'my file.txt', 'a "b"', 'c d']);
    for (const bad of ['ls | wc', 'echo $HOME', 'a; b', 'x > y', '"$(id)"', "'open", '']) expect(() => splitCommandLine(bad), bad).toThrow();
  });

  it('a malformed cast is an error naming file:line before anything runs', async () => {
    const cast = join(dir, 'bad.cast');
    writeFileSync(cast, '{"version": 2, "width": 20, "height": 4}\n[0.1, "o", "hi"]\n[0.2, "i"\n');
    const err = await replayTerminal(cast, { command: ['true'] }).catch((e: unknown) => e as { describe(): string; exitCode: number });
    expect(err.exitCode).toBe(2);
    expect(err.describe()).toMatch(new RegExp(`^${cast}:3: event is not valid JSON`));
  });

  it('a cast without a recorded command asks for one', async () => {
    const cast = join(dir, 'nocommand.cast');
    writeFileSync(cast, '{"version": 2, "width": 20, "height": 4}\n[0.1, "o", "hi"]\n');
    await expect(replayTerminal(cast)).rejects.toThrow(/does not record its command; give it after --/);
    const withCommand = join(dir, 'command.cast');
    writeFileSync(withCommand, '{"version": 2, "width": 20, "height": 4, "command": "printf hi"}\n[0.1, "o", "hi"]\n');
    expect((await replayTerminal(withCommand)).drifts).toEqual([]);
  });
});
