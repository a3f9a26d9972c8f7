import { existsSync, readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import type { CheckpointScreenshot } from '../replayer/terminal-screenshot.js';
import type { ReplayTapesResult } from '../replayer/replay-tapes.js';
import { openCast } from './asciicast-read.js';
import { parseScreenGolden } from './golden-text.js';
import { diffImage, mismatchArtifactPaths } from './pixel-diff.js';
import type { ReportRun, ReportScreenshot, ReportTape } from './report-html.js';
import { renderSnapshot } from './renderer.js';
import { Screen } from './screen.js';

/** Casts above this size are left out of the report's players (the page would be too heavy to open). */
const MAX_EMBEDDED_CAST_BYTES = 8 * 1024 * 1024;
/** Screenshots drawn per drifted terminal tape. */
const MAX_SHOTS_PER_TAPE = 3;

export interface ReportFromRunOptions {
  title?: string;
  startedAt?: Date;
  /** Draw expected/actual/diff screenshots of terminal drifts (needs Chromium). */
  screenshots?: boolean;
}

/** Turns a replay run into the report's data: players, markers at checkpoints and drifts, screenshots. */
export async function reportFromRun(run: ReplayTapesResult, options: ReportFromRunOptions = {}): Promise<ReportRun> {
  const tapes: ReportTape[] = [];
  for (const t of run.tapes) {
    if (t.kind === 'protocol') {
      tapes.push({ tape: t.tape, kind: 'protocol', durationMs: t.durationMs, units: t.pairs.length, drifts: t.drifts });
      continue;
    }
    const tape: ReportTape = { tape: t.tape, kind: 'terminal', durationMs: t.durationMs, units: t.steps.length, drifts: t.drifts };
    if (statSync(t.tape).size <= MAX_EMBEDDED_CAST_BYTES) {
      tape.recordedCast = readFileSync(t.tape, 'utf8');
      const markers = await castMarkers(t.tape, new Map(t.drifts.map((d) => [d.line, `drift: step ${d.pair}`])));
      tape.recordedMarkers = markers;
      if (t.liveCast && Buffer.byteLength(t.liveCast) <= MAX_EMBEDDED_CAST_BYTES) {
        tape.replayedCast = t.liveCast;
        tape.replayedMarkers = markers; // the live cast keeps the recorded step timing
      }
    }
    const shots = [...checkpointMismatches(t.screenshots ?? [])];
    if (options.screenshots && t.drifts.some((d) => d.actual !== undefined)) shots.push(...(await driftScreenshots(t.drifts)));
    if (shots.length) tape.screenshots = shots;
    tapes.push(tape);
  }
  return { title: options.title, startedAt: options.startedAt ?? new Date(Date.now() - run.durationMs), durationMs: run.durationMs, tapes };
}

/** Checkpoint screenshot goldens that differed: the golden, and the actual and diff images written beside it. */
function* checkpointMismatches(shots: readonly CheckpointScreenshot[]): Generator<ReportScreenshot> {
  for (const shot of shots) {
    if (shot.status !== 'mismatch') continue;
    const { actual, diff } = mismatchArtifactPaths(shot.golden);
    const read = (path: string) => (existsSync(path) ? readFileSync(path) : undefined);
    yield { label: `marker "${shot.marker}" (${relative(process.cwd(), shot.golden)})`, expected: read(shot.golden), actual: read(actual), diff: read(diff) };
  }
}

/** The cast's own markers, plus one at each drifted step's line. */
async function castMarkers(path: string, driftLines: Map<number, string>): Promise<Array<[number, string]>> {
  const markers: Array<[number, string]> = [];
  const cast = await openCast(path);
  for await (const e of cast.events()) {
    if (e.code === 'm') markers.push([e.time, e.data]);
    const drift = driftLines.get(e.line);
    if (drift) markers.push([e.time, drift]);
  }
  return markers.sort((a, b) => a[0] - b[0]);
}

async function driftScreenshots(drifts: ReplayTapesResult['tapes'][number]['drifts']): Promise<ReportScreenshot[]> {
  const shots: ReportScreenshot[] = [];
  for (const d of drifts.filter((x) => x.actual !== undefined).slice(0, MAX_SHOTS_PER_TAPE)) {
    const expected = await screenTextToPng(d.expected);
    const actual = await screenTextToPng(d.actual!);
    if (!expected || !actual) continue;
    let diff: Buffer | undefined;
    try {
      diff = diffImage(expected, actual);
    } catch {
      diff = undefined; // different sizes: no pixel diff, the two images still show
    }
    shots.push({ label: `step ${d.pair}: ${d.request}`, expected, actual, diff });
  }
  return shots;
}

/** Draws a screen golden's text (no colours: the text form has none) as the screenshot renderer would. */
async function screenTextToPng(text: string): Promise<Buffer | undefined> {
  const parsed = parseScreenGolden(text);
  const size = /cols=(\d+) rows=(\d+)/.exec(parsed.header);
  if (!size) return undefined;
  const screen = new Screen({ cols: Number(size[1]), rows: Number(size[2]), scrollback: 0 });
  try {
    await screen.write(parsed.lines.map((l) => l.replace(/\s+$/, '')).join('\r\n'));
    return (await renderSnapshot(screen.snapshot({ includeCells: true }), { cursor: 'hide' })).png;
  } finally {
    screen.dispose();
  }
}
