import { TapedeckError } from '../../core/diagnostics/errors.js';
import type { ScreenSnapshot } from '../../session/screen/screen.js';
import type { Picture } from '../../render/vhs/window.js';
import type { VhsRunResult } from './run.js';

/**
 * The frames VHS would capture for a run's GIF, video and frames Outputs:
 * one per tick of 1 / Framerate seconds from where recording starts (after a
 * leading Hide block) to the end of the tape, none in a Hide ... Show stretch;
 * each shows the screen after every output up to its time (the run's cast,
 * played again on a headless screen). LoopOffset moves the first
 * ceil(offset% x frames) frames to the end (VHS's ApplyLoopOffset);
 * PlaybackSpeed shortens each frame to 1 / (Framerate x speed) seconds.
 */
export interface FramePlan {
  fps: number;
  speed: number;
  /** Tick times (timeline ms) of the frames that are captured, in capture order. */
  times: number[];
  /** Frames moved to the end by LoopOffset. */
  offset: number;
}

/** At most this many frames in one output (an hour at VHS's 50 per second). */
export const MAX_FRAMES = 180_000;

export function framePlan(result: VhsRunResult): FramePlan {
  const o = result.options;
  const fps = o.framerate;
  const interval = 1000 / fps;
  const start = result.recordStartMs;
  const span = Math.max(0, result.timelineMs - start);
  const ticks = Math.floor(span / interval + 1e-9);
  if (ticks > MAX_FRAMES * 4) throw tooMany(result, ticks);
  const times: number[] = [];
  for (let k = 1; k <= ticks; k++) {
    const t = start + k * interval;
    if (!result.hidden.some(([from, to]) => t >= from && t < to)) times.push(t);
  }
  // A tape with no time on it still has its one screen.
  if (times.length === 0) times.push(result.timelineMs);
  if (times.length > MAX_FRAMES) throw tooMany(result, times.length);
  const offset = Math.ceil((o.loopOffset / 100) * times.length) % times.length;
  return { fps, speed: o.playbackSpeed, times, offset };
}

function tooMany(result: VhsRunResult, n: number): TapedeckError {
  const at = result.outputs.find((c) => c.format !== 'txt' && c.format !== 'ascii' && c.format !== 'cast')?.at;
  return new TapedeckError('INVALID_INPUT', `the tape's video would have ${n} frames; at most ${MAX_FRAMES} (lower Framerate or shorten the tape)`, {
    location: at ? { file: at.file, line: at.line } : { file: result.tape.file },
  });
}

export interface FrameRun {
  snapshot: ScreenSnapshot;
  /** Consecutive frames showing it. */
  ticks: number;
}

/** The distinct screens of frames [from, to) of the plan, in order, each with how many frames show it. */
export async function* screenRuns(result: VhsRunResult, plan: FramePlan, from: number, to: number): AsyncGenerator<FrameRun> {
  const { Screen } = await import('../../session/screen/screen.js');
  const screen = new Screen({ rows: result.rows, cols: result.cols, scrollback: 1000 });
  try {
    const events = result.cast;
    let e = 0;
    let key = '';
    let run: FrameRun | undefined;
    for (let j = 0; j < to; j++) {
      const t = plan.times[j];
      let wrote = false;
      while (e < events.length && events[e].time <= t) {
        if (events[e].code === 'o') {
          screen.writeNow(events[e].data);
          wrote = true;
        }
        e++;
      }
      if (j < from) continue;
      if (wrote) await screen.flush();
      const k = !run || wrote ? screen.frameKey() : key;
      if (run && k === key) {
        run.ticks++;
        continue;
      }
      if (run) yield run;
      key = k;
      run = { snapshot: screen.snapshot({ includeCells: true }), ticks: 1 };
    }
    if (run) yield run;
  } finally {
    screen.dispose();
  }
}

/** Every frame run in the output's order (LoopOffset applied). */
export async function* orderedRuns(result: VhsRunResult, plan: FramePlan): AsyncGenerator<FrameRun> {
  yield* screenRuns(result, plan, plan.offset, plan.times.length);
  if (plan.offset > 0) yield* screenRuns(result, plan, 0, plan.offset);
}

/** The tape's look: its render profile and VHS's window around the terminal. */
export async function vhsLook(result: VhsRunResult): Promise<(snapshot: ScreenSnapshot) => Picture> {
  const { renderScreenRgba } = await import('../../render/raster/index.js');
  const { vhsProfile } = await import('../../render/vhs/theme.js');
  const { VhsWindow } = await import('../../render/vhs/window.js');
  const o = result.options;
  const profile = vhsProfile({ theme: o.theme, fontSize: o.fontSize, lineHeight: o.lineHeight });
  const window = new VhsWindow({
    width: o.width, height: o.height, padding: o.padding, margin: o.margin, marginFill: o.marginFill, windowBar: o.windowBar,
    windowBarSize: o.windowBarSize, borderRadius: o.borderRadius, background: profile.theme.background,
  });
  const source = { file: result.tape.file, line: result.outputs[0]?.at.line };
  return (snapshot) => window.compose(renderScreenRgba(snapshot, { profile, cursor: 'auto', source }));
}

/** A picture of the tape's look as a stamped PNG (a frame file, a Screenshot). */
export async function vhsPng(result: VhsRunResult, snapshot: ScreenSnapshot, picture: Picture): Promise<Buffer> {
  const { encodeRgbaPng } = await import('../../render/raster/png.js');
  const { stampOf } = await import('../../render/raster/index.js');
  const { cellMetrics } = await import('../../render/raster/glyphs.js');
  const o = result.options;
  const m = cellMetrics(o.fontSize, o.lineHeight);
  const stamp = { ...stampOf(snapshot, { cell: { width: m.width, height: m.height }, padding: { x: o.padding, y: o.padding } }), vhs: `${o.width}x${o.height}` };
  return encodeRgbaPng(picture.width, picture.height, picture.data, stamp);
}

/** Renders runs into the tape's window: each distinct screen drawn once. */
export async function* pictures(result: VhsRunResult, plan: FramePlan): AsyncGenerator<{ picture: Picture; ticks: number; snapshot: ScreenSnapshot }> {
  const draw = await vhsLook(result);
  for await (const run of orderedRuns(result, plan)) yield { picture: draw(run.snapshot), ticks: run.ticks, snapshot: run.snapshot };
}
