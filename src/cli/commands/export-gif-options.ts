import { usageError } from '../../core/diagnostics/errors.js';
import type { CastPosition } from '../../session/cast/play.js';
import type { GifOptions } from '../../render/gif/export.js';

/** `tapedeck export --format gif`'s flags as GifOptions; a bad value is a usage error naming the flag. */
export function gifOptions(values: Record<string, string | boolean | undefined>): GifOptions {
  const num = (name: string, ok: (n: number) => boolean, what: string): number | undefined => {
    const raw = values[name];
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(n) || !ok(n)) throw usageError(`export: --${name} expects ${what}, got ${JSON.stringify(raw)}`);
    return n;
  };
  return {
    fps: num('fps', (n) => Number.isInteger(n) && n >= 1 && n <= 50, 'a whole number of frames per second from 1 to 50'),
    speed: num('speed', (n) => n > 0 && n <= 1000, 'a speed factor above 0 (at most 1000)'),
    idleTimeLimit: num('idle-time-limit', (n) => n > 0, 'a number of seconds > 0'),
    loop: num('loop', (n) => Number.isInteger(n) && n >= 0 && n <= 65536, 'how many times to play: 0 (for ever) or a whole number up to 65536'),
    from: position('from', values.from),
    to: position('to', values.to),
    profile: typeof values.profile === 'string' ? values.profile : undefined,
    cursor: values['hide-cursor'] ? 'hide' : 'auto',
  };
}

/** A marker name, #N (the N-th marker) or seconds. */
export function position(flag: string, at: string | boolean | undefined): CastPosition {
  if (at === undefined || typeof at !== 'string') return undefined;
  if (at.trim() === '') throw usageError(`export: --${flag} needs a marker name, #N or a number of seconds`);
  if (Number.isFinite(Number(at))) {
    if (Number(at) < 0) throw usageError(`export: --${flag} seconds must be >= 0, got ${at}`);
    return { seconds: Number(at) };
  }
  const index = /^#(\d+)$/.exec(at);
  if (index) {
    if (Number(index[1]) < 1) throw usageError(`export: --${flag} #N counts markers from 1, got ${at}`);
    return { markerIndex: Number(index[1]) };
  }
  return { marker: at };
}
