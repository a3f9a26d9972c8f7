import { randomBytes } from 'node:crypto';

/**
 * ULID-style ids (seed 002 §4): 10 Crockford base32 characters of milliseconds
 * then 16 of randomness, so ids sort by creation time as plain strings. Within
 * one millisecond of one process the random part is incremented instead of
 * redrawn, so ids made in a row still sort in order.
 */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export type IdPrefix = 'sess' | 'snap' | 'shot' | 'rec' | 'vid';

let lastTime = -1;
let lastRandom: number[] = [];

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

function nextRandom(ms: number): number[] {
  if (ms === lastTime) {
    const r = [...lastRandom];
    for (let i = r.length - 1; i >= 0; i--) {
      if (r[i] < 31) {
        r[i]++;
        break;
      }
      r[i] = 0;
    }
    return r;
  }
  return [...randomBytes(16)].map((b) => b % 32);
}

export function ulid(now = Date.now()): string {
  const random = nextRandom(now);
  lastTime = now;
  lastRandom = random;
  return encodeTime(now) + random.map((n) => ALPHABET[n]).join('');
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}

/** What a session id may look like: no path separators or dots, so it is always one directory name. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
