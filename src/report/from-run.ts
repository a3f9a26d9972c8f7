import { summariseTape } from './summary.js';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import type { CheckpointScreenshot } from '../replayer/terminal/screenshot.js';
import type { ReplayTapesResult } from '../replayer/replay-tapes.js';
import type { Drift } from '../core/diagnostics/drift.js';
import type { TerminalTapeResult } from '../replayer/terminal/replay.js';
import { parseScreenGolden } from '../render/golden-text.js';
import { diffImage, mismatchArtifactPaths } from '../render/pixel/diff.js';
import type { ReportRun, ReportScreenshot, ReportTape } from './html.js';
import { renderSnapshot } from '../render/raster/render.js';
import { Screen } from '../session/screen/screen.js';

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
      tapes.push(summariseTape(t));
      continue;
    }
    const tape: ReportTape = summariseTape(t);
    // The session as recorded (kept by the replay when --update has rewritten the file since).
    const recorded = t.recordedCast ?? (statSync(t.tape).size <= MAX_EMBEDDED_CAST_BYTES ? readFileSync(t.tape, 'utf8') : undefined);
    if (recorded !== undefined) {
      const markers = timelineMarkers(t.timeline, t.drifts);
      tape.recordedCast = recorded;
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

/** The tape's checkpoints, plus one marker at each drifted step, at their recorded times. */
function timelineMarkers(timeline: TerminalTapeResult['timeline'], drifts: readonly Drift[]): Array<[number, string]> {
  const markers: Array<[number, string]> = timeline.flatMap((s) => (s.marker !== undefined ? [[s.time, s.marker] as [number, string]] : []));
  for (const d of drifts) {
    const at = timeline.find((s) => s.line === d.line);
    if (at) markers.push([at.time, `drift: step ${d.pair}`]);
  }
  return markers.sort((a, b) => a[0] - b[0]);
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

/**
 * Pictures of the expected and actual screens of drifted steps. They only
 * illustrate: without a browser the report goes without them.
 */
async function driftScreenshots(drifts: readonly Drift[]): Promise<ReportScreenshot[]> {
  const shots: ReportScreenshot[] = [];
  for (const d of drifts.filter((x) => x.actual !== undefined).slice(0, MAX_SHOTS_PER_TAPE)) {
    let expected: Buffer | undefined;
    let actual: Buffer | undefined;
    try {
      expected = await screenTextToPng(d.expected);
      actual = await screenTextToPng(d.actual!);
    } catch {
      return shots; // renderer unavailable (no Chromium): the screens are in the report as text anyway
    }
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
