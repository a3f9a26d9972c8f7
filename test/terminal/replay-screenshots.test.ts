import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCast, screenshotCast, comparePngs, closeRenderer, recordScript } from '../../src/index.js';
import { decodePng, encodePng, pngSize } from '../../src/render/pixel/png.js';
import { replayCastCleanly } from '../../src/matchers/terminal-replay.js';
import { tapedeck, tapedeckInProcess, tempDir } from '../helpers/cli.js';

/**
 * Screenshot checkpoints in terminal replay, end to end: a real bash in a real
 * PTY, the real Chromium renderer, goldens on disk. The prompt's colour comes
 * from the command line (PS1), so a replay against another colour shows the
 * same text (the text comparison passes) but different pixels. The tape is
 * recorded once; each test works in its own copy of the project.
 */
const { dir, cleanup } = tempDir('tapedeck-replay-shots-');
afterAll(async () => {
  await closeRenderer();
  cleanup();
});

const bash = (sgr: number) => ['env', `PS1=\\[\\e[${sgr}m\\]demo$\\[\\e[0m\\] `, 'HISTFILE=', 'bash', '--norc', '--noprofile'];
const GREEN = bash(32);
const RED = bash(31);
const MARKER = 'after echo';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Local runs: not CI, no update mode or profile from the caller's environment. */
const LOCAL = { CI: '', TAPEDECK_UPDATE: '', TAPEDECK_PROFILE: '' };

const recordedCast = join(dir, 'recorded.cast');
let markerLine = 0;
/** The recorded checkpoint screen drawn by `tapedeck screenshot` (a green prompt). */
let greenShot: Buffer;

/** A fresh copy of the project in `name`: the tape, and with `golden` its screenshot golden of the recorded screen. */
function project(name: string, options: { golden?: boolean } = {}) {
  const root = join(dir, name);
  mkdirSync(root);
  const paths = {
    root,
    cast: join(root, 'colour.cast'),
    golden: join(root, 'colour.after-echo.png'),
    actualPng: join(root, 'colour.after-echo.actual.png'),
    diffPng: join(root, 'colour.after-echo.diff.png'),
  };
  copyFileSync(recordedCast, paths.cast);
  if (options.golden) writeFileSync(paths.golden, greenShot);
  return paths;
}

// The tape is in a scratch folder, not a project: its recorded command runs only with --trust-tape.
const replayArgs = (args: string[]) => ['replay', ...args, ...(args.includes('--') ? [] : ['--trust-tape'])];
// main(argv, io) in this process: the checkpoints share one renderer page instead of one per run.
const replay = (cwd: string, args: string[], env: Record<string, string> = LOCAL) => tapedeckInProcess(replayArgs(args), { cwd, env });
// The bin in its own process, for what it prints: paths relative to where it runs.
const replayBin = (cwd: string, args: string[], env: Record<string, string> = LOCAL) => tapedeck(replayArgs(args), { cwd, env });

beforeAll(async () => {
  await recordScript({
    out: recordedCast,
    command: GREEN[0],
    args: GREEN.slice(1),
    cwd: dir,
    rows: 6,
    cols: 30,
    steps: [{ waitFor: 'demo$' }, { type: 'echo hello\r' }, { waitFor: 'hello\ndemo$' }, { marker: MARKER }, { type: 'exit\r' }],
  });
  const { events } = await readCast(recordedCast);
  markerLine = events.find((e) => e.code === 'm' && e.data === MARKER)!.line;
  greenShot = (await screenshotCast(recordedCast, { marker: MARKER })).png;
});

describe.concurrent('replay --screenshots', () => {
  it('the first run writes <cast>.<marker>.png: a PNG of the checkpoint screen; the next run is clean', async () => {
    const { root, cast, golden, actualPng } = project('first-run');
    const first = await replay(root, ['colour.cast', '--screenshots']);
    expect(first.stderr).toContain(`tapedeck: wrote new screenshot golden colour.after-echo.png (marker "${MARKER}")`);
    expect(first.code).toBe(0);
    const png = readFileSync(golden);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    // It shows exactly the recorded screen at the marker, as `tapedeck screenshot --at` draws it.
    const recorded = await screenshotCast(cast, { marker: MARKER });
    expect(pngSize(png)).toEqual({ width: recorded.pixelWidth, height: recorded.pixelHeight });
    expect(comparePngs(recorded.png, png).diffPixels).toBe(0);

    const second = await replay(root, ['colour.cast', '--screenshots']);
    expect(second.code).toBe(0);
    expect(second.stderr).not.toContain('screenshot golden');
    expect(readFileSync(golden).equals(png)).toBe(true);
    expect(existsSync(actualPng)).toBe(false);
  });

  it('a colour change the text form cannot see drifts with TD1106 at the marker line, leaving .actual.png and .diff.png', async () => {
    const { root, cast, golden, actualPng, diffPng } = project('colour-change', { golden: true });
    const goldenBefore = readFileSync(golden);
    const castBefore = readFileSync(cast);
    // Without --screenshots (and without --styles) the same text replays clean.
    const textOnly = await replay(root, ['colour.cast', '--', ...RED]);
    expect(textOnly.code).toBe(0);

    const run = await replayBin(root, ['colour.cast', '--screenshots', '--json', '--json-summary', '--report', 'report.html', '--', ...RED]);
    expect(run.code).toBe(1);
    // The report shows the golden, the actual and the diff image of the checkpoint.
    const report = readFileSync(join(root, 'report.html'), 'utf8');
    expect(report).toContain(`screenshot: marker &quot;${MARKER}&quot;`);
    expect(report.match(/data-shot="(expected|actual|diff)" src="data:image\/png;base64,/g)?.length).toBe(3);
    const [envelope, summary] = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(envelope).toMatchObject({ code: 'TD1106', span: { file: 'colour.cast', line: markerLine } });
    expect(envelope.title).toBe(`checkpoint marker "${MARKER}": screenshot differs from colour.after-echo.png`);
    expect(envelope.prose).toContain('actual: colour.after-echo.actual.png');
    expect(envelope.prose).toContain('diff: colour.after-echo.diff.png');
    expect(summary).toMatchObject({ drifts: 1, exit_code: 1 });
    expect(run.stderr).toContain(`colour.cast:${markerLine}: step 2: checkpoint marker "${MARKER}": screenshot differs from colour.after-echo.png [TD1106]`);
    expect(run.stderr).toMatch(/\d+ pixels \(ratio [\d.]+ of all image pixels\) are different; allowed 0/);

    const actual = readFileSync(actualPng);
    expect(actual.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(comparePngs(goldenBefore, actual).diffPixels).toBeGreaterThan(0);
    expect(readFileSync(diffPng).subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(existsSync(`${golden}.new`)).toBe(true); // the candidate, for `tapedeck review`
    // The golden and the tape are untouched; the tape gets no .new (its text replayed clean).
    expect(readFileSync(golden).equals(goldenBefore)).toBe(true);
    expect(readFileSync(cast).equals(castBefore)).toBe(true);
    expect(existsSync(`${cast}.new`)).toBe(false);

    // Playwright's meanings: allowing every pixel to differ passes (and the stale images go);
    // a bad value is a usage error.
    const lenient = await replay(root, ['colour.cast', '--screenshots', '--max-diff-pixel-ratio', '1', '--', ...RED]);
    expect(lenient.code).toBe(0);
    expect([actualPng, diffPng, `${golden}.new`].filter(existsSync)).toEqual([]);
    expect(readFileSync(golden).equals(goldenBefore)).toBe(true);
    expect((await replay(root, ['colour.cast', '--screenshots', '--threshold', '2'])).stderr).toMatch(/--threshold expects a number from 0 to 1/);
    const noFlag = await replay(root, ['colour.cast', '--max-diff-pixels', '5']);
    expect(noFlag.code).toBe(2);
    expect(noFlag.stderr).toContain('--max-diff-pixels applies to checkpoint screenshots; add --screenshots');
  });

  it('on CI a missing screenshot golden fails and nothing is written', async () => {
    const { root: ci } = project('ci');
    const run = await replay(ci, ['colour.cast', '--screenshots'], { ...LOCAL, CI: 'true' });
    expect(run.code).toBe(1);
    // In this process the paths print absolute (the colour-change test checks the bin's relative ones).
    expect(run.stderr).toContain(`colour.cast:${markerLine}: step 2: checkpoint marker "${MARKER}": screenshot golden `);
    expect(run.stderr).toContain(`colour.after-echo.png is missing [TD1106]`);
    expect(run.stderr).toContain('on CI (CI is set) goldens are never written');
    expect(readdirSync(ci)).toEqual(['colour.cast']);
  });

  it('--update rewrites the golden with the live screen, leaving the tape alone', async () => {
    const { root, cast, golden } = project('update', { golden: true });
    const castBefore = readFileSync(cast);
    const run = await replay(root, ['colour.cast', '--screenshots', '--update', '--', ...RED]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('tapedeck: updated screenshot golden colour.after-echo.png');
    expect(comparePngs(greenShot, readFileSync(golden)).diffPixels).toBeGreaterThan(0);
    expect(readFileSync(cast).equals(castBefore)).toBe(true); // no text drift: the tape stays as it was
    // The golden is now the red prompt: a red replay is clean, the recorded green one drifts.
    expect((await replay(root, ['colour.cast', '--screenshots', '--', ...RED])).code).toBe(0);
    expect((await replay(root, ['colour.cast', '--screenshots'])).code).toBe(1);
  });

  it('needs no Chromium: checkpoints are compared without one (clean, then TD1106 on a colour change)', async () => {
    const { root } = project('no-browser', { golden: true });
    // A process of its own: the Chromium to launch would be read from its environment.
    const noBrowser = { ...LOCAL, TAPEDECK_CHROMIUM: join(root, 'no-such-chromium') };
    const clean = await replayBin(root, ['colour.cast', '--screenshots'], noBrowser);
    expect(clean.stderr).not.toMatch(/Chromium|internal error|\n\s+at /);
    expect(clean.code).toBe(0);
    const drifted = await replayBin(root, ['colour.cast', '--screenshots', '--', ...RED], noBrowser);
    expect(drifted.code).toBe(1);
    expect(drifted.stderr).toContain('[TD1106]');
  });

  it('a golden made by another renderer is reported as that, with the fix (exit 2), not as drift; --update re-records it', async () => {
    const { root, golden } = project('other-renderer');
    // The same pixels without the renderer stamp: what the browser renderer of earlier versions wrote.
    writeFileSync(golden, encodePng(decodePng(greenShot)));
    const run = await replayBin(root, ['colour.cast', '--screenshots'], LOCAL);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`checkpoint marker "${MARKER}": golden made by renderer xterm-dom-chromium (unstamped`);
    expect(run.stderr).toContain('re-record with -u (replay --screenshots --update)');
    expect(run.stderr).not.toContain('TD1106');
    const updated = await replay(root, ['colour.cast', '--screenshots', '--update']);
    expect(updated.code).toBe(0);
    expect(readFileSync(golden).equals(greenShot)).toBe(true);
  });
});

describe('toReplayCleanly(cast, { screenshots })', () => {
  it('passes against the golden and fails with TD1106 on a colour change, in the test update mode', async () => {
    const { root, cast } = project('matcher', { golden: true });
    const ctx = { snapshotState: { snapshotUpdateState: 'none' as const } };
    const clean = await replayCastCleanly(ctx, cast, GREEN, { screenshots: true, cwd: root });
    expect(clean.message()).toContain('replayed cleanly');
    expect(clean.pass).toBe(true);
    const drifted = await replayCastCleanly(ctx, cast, RED, { screenshots: { maxDiffPixels: 0 }, cwd: root });
    expect(drifted.pass).toBe(false);
    expect(drifted.message()).toContain('[TD1106]');
    expect(drifted.message()).toContain('colour.after-echo.actual.png');
  });
});
