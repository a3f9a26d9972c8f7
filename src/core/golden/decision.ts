import type { UpdatePolicy } from '../config/ci.js';

/**
 * The one decision every golden's update shares (docs/ARCHITECTURE.md "Update
 * modes"): a pure table, apart from the store (store.ts) that acts on it, so a
 * replay that only compares does not load the store and its file writers.
 */
export type GoldenStatus = 'matched' | 'written' | 'updated' | 'missing' | 'mismatch';

/** What settle() decides for a golden in a given state: a pure table, so every caller agrees. */
export interface GoldenDecision {
  status: GoldenStatus;
  /** Write the live result as the golden. */
  writeGolden: boolean;
  /** Leave the live result beside the golden as `<golden>.new`. */
  writeCandidate: boolean;
  /** Remove a stale candidate and stale mismatch images. */
  clean: boolean;
}

export function decideGolden(mode: UpdatePolicy['mode'], state: 'missing' | 'matched' | 'differs'): GoldenDecision {
  const writes = mode !== 'none';
  if (state === 'missing') return { status: writes ? 'written' : 'missing', writeGolden: writes, writeCandidate: false, clean: writes };
  if (state === 'matched') return { status: 'matched', writeGolden: false, writeCandidate: false, clean: writes };
  if (mode === 'all') return { status: 'updated', writeGolden: true, writeCandidate: false, clean: true };
  return { status: 'mismatch', writeGolden: false, writeCandidate: writes, clean: false };
}

/**
 * A replayed tape is its own golden: `update` rewrites it (mode all),
 * `writePending` leaves a candidate (mode new), neither only compares.
 */
export function tapeDecision(options: { update?: boolean; writePending?: boolean }, drifted: boolean): GoldenDecision {
  return decideGolden(options.update ? 'all' : options.writePending ? 'new' : 'none', drifted ? 'differs' : 'matched');
}
