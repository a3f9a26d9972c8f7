import { TapedeckError } from '../../core/diagnostics/errors.js';
import type { CastPosition } from '../../session/cast/play.js';

/**
 * When a GIF's frames fall: the cast's own times, from the --from point on,
 * with every pause cut to the idle limit (asciinema's idle_time_limit: a gap
 * between two events longer than the limit counts as the limit) and divided
 * by the speed. Time is cut into slots of 1/fps; the frame of a slot shows
 * the screen after every event up to its start, so an event shows at the
 * first slot start at or after its time. A slot gets a frame only when an
 * event in the slot before changed the screen.
 */
export type Step = { kind: 'apply' } | { kind: 'frame'; time: number; castTime: number } | { kind: 'stop' };

export interface TimelineOptions {
  fps?: number;
  speed?: number;
  idleTimeLimit?: number;
  from?: CastPosition;
  to?: CastPosition;
}

interface CastEvent {
  time: number;
  code: string;
  data: string;
}

export const DEFAULT_GIF_FPS = 30;
export const DEFAULT_IDLE_LIMIT = 2;

export class GifTimeline {
  readonly fps: number;
  private readonly speed: number;
  private readonly idle: number;
  private started: boolean;
  private lastCastTime = 0;
  private out = 0;
  private slot = 0;
  private dirty = true;
  private markers = 0;
  private reachedTo = false;
  private lastFrameTime = 0;
  private lastFrameSlot = -1;

  constructor(
    private readonly options: TimelineOptions,
    private readonly file: string,
  ) {
    this.fps = options.fps ?? DEFAULT_GIF_FPS;
    this.speed = options.speed ?? 1;
    this.idle = options.idleTimeLimit ?? DEFAULT_IDLE_LIMIT;
    this.started = options.from === undefined;
  }

  /** What to do before applying an event to the screen. */
  next(e: CastEvent): Step {
    const to = this.options.to;
    if (to && 'seconds' in to && e.time > to.seconds && this.started) {
      this.reachedTo = true;
      return { kind: 'stop' };
    }
    if (e.code === 'm') this.markers++;
    if (!this.started) {
      const from = this.options.from!;
      if ('seconds' in from && e.time > from.seconds) {
        this.start(from.seconds);
      } else {
        this.lastCastTime = e.time;
        if (e.code === 'm' && this.isMarker(from, e)) this.start(e.time, true);
        return { kind: 'apply' };
      }
    }
    const gap = Math.max(0, e.time - this.lastCastTime);
    const out = this.out + Math.min(gap, this.idle) / this.speed;
    const slot = Math.max(0, Math.ceil(out * this.fps - 1e-9));
    let step: Step = { kind: 'apply' };
    if (slot > this.slot && this.dirty) {
      // Never two frames in one slot: a redraw after one comes a slot later, when no event falls in that slot.
      const at = Math.max(this.slot, this.lastFrameSlot + 1);
      if (slot > at) step = this.frame(at);
    }
    this.out = out;
    this.lastCastTime = e.time;
    this.slot = Math.max(this.slot, slot);
    if (e.code === 'o' || e.code === 'r') this.dirty = true;
    return step;
  }

  /** The next slot gets a frame even if no event changes the screen (to set quantised pixels right). */
  redrawNext(): void {
    this.dirty = true;
  }

  /** True after the event that is the --to marker. */
  stopsAfter(e: CastEvent): boolean {
    const to = this.options.to;
    if (!to || !this.started || e.code !== 'm' || !this.isMarker(to, e)) return false;
    this.reachedTo = true;
    return true;
  }

  /** The cast ended (or reached --to): whether the screen still needs a frame, and when the GIF ends. */
  finish(): { capture: boolean; time: number; castTime: number; endTime: number } {
    const from = this.options.from;
    if (!this.started) {
      if (from && 'seconds' in from) this.start(from.seconds);
      else throw notFound(this.file, from!, '--from');
    }
    const to = this.options.to;
    if (to && !('seconds' in to) && !this.reachedTo) throw notFound(this.file, to, '--to');
    let endTime = this.out;
    if (to && 'seconds' in to && to.seconds > this.lastCastTime) endTime += Math.min(to.seconds - this.lastCastTime, this.idle) / this.speed;
    const capture = this.dirty;
    const step = capture ? this.frame(Math.max(this.slot, this.lastFrameSlot + 1)) : null;
    return { capture, time: step?.time ?? this.lastFrameTime, castTime: this.lastCastTime, endTime: Math.max(endTime, this.lastFrameTime) };
  }

  /** The GIF's length in seconds, up to its last event. */
  get duration(): number {
    return Math.max(this.out, this.lastFrameTime);
  }

  /** A frame one slot after the last (the end's quantised pixels set right). */
  extraFrame(): Extract<Step, { kind: 'frame' }> {
    return this.frame(this.lastFrameSlot + 1);
  }

  private frame(at: number): Extract<Step, { kind: 'frame' }> {
    this.dirty = false;
    this.lastFrameSlot = at;
    this.lastFrameTime = at / this.fps;
    return { kind: 'frame', time: this.lastFrameTime, castTime: this.lastCastTime };
  }

  private start(at: number, atMarker = false): void {
    this.started = true;
    this.lastCastTime = at;
    if (atMarker) this.dirty = true;
  }

  private isMarker(pos: NonNullable<CastPosition>, e: CastEvent): boolean {
    return 'marker' in pos ? e.data === pos.marker : 'markerIndex' in pos && this.markers === pos.markerIndex;
  }
}

function notFound(file: string, pos: NonNullable<CastPosition>, flag: string): TapedeckError {
  const wanted = 'marker' in pos ? JSON.stringify(pos.marker) : 'markerIndex' in pos ? `#${pos.markerIndex}` : String(pos);
  return new TapedeckError('MARKER_NOT_FOUND', `${flag}: no marker ${wanted} in the cast`, { location: { file }, details: { marker: wanted } });
}
