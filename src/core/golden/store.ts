import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { writeFileAtomic, writeTarget } from '../files/atomic-write.js';
import { withFileLock } from '../files/file-lock.js';
import type { UpdatePolicy } from '../config/ci.js';
import { goldenPaths } from './paths.js';
import { decideGolden, type GoldenDecision, type GoldenStatus } from './decision.js';

export { decideGolden, type GoldenDecision, type GoldenStatus };

/**
 * The golden store, like vitest's SnapshotState over a SnapshotEnvironment:
 * the caller resolves the update policy once and passes it in, every file
 * operation goes through a small GoldenIO, and settle() is the one decision
 * (write, rewrite, leave a candidate, clean up) that matchers and replayers
 * share (docs/ARCHITECTURE.md "Update modes").
 *
 *   none  never write; a missing golden fails (the CI default)
 *   new   write missing goldens, compare existing ones, leave `.new` on a mismatch
 *   all   rewrite goldens that differ (vitest -u, TAPEDECK_UPDATE=all, --update)
 *
 * Writes are atomic (temp file + rename), so parallel workers and crashes
 * never leave a half-written golden.
 */
export interface GoldenIO {
  read(path: string): Buffer | undefined;
  write(path: string, data: Buffer): void;
  remove(path: string): void;
}

export const fileGoldenIO: GoldenIO = {
  read(path) {
    try {
      return readFileSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  },
  write(path, data) {
    writeTarget(path); // no folder made through a link that leaves the project
    mkdirSync(dirname(path), { recursive: true });
    // Locked like every rewrite: parallel writers of one golden serialise (see files/file-lock.ts).
    withFileLock(path, () => writeFileAtomic(path, data));
  },
  remove(path) {
    rmSync(path, { force: true });
  },
};

export interface GoldenVerdict {
  pass: boolean;
  /** Explains a mismatch. */
  message?: string;
}

export interface GoldenResult {
  pass: boolean;
  status: GoldenStatus;
  message: string;
  /** Extra files written beside the golden (pending `.new`, diff images). */
  artifacts: string[];
}

export interface SettleInput {
  path: string;
  actual: Buffer | string;
  /** The comparison with the existing golden; undefined when there is none. */
  verdict: GoldenVerdict | undefined;
  /** On a mismatch that is not accepted: write diagnostics (actual and diff images) and name them. */
  onMismatch?: () => string[] | void;
  /** Shown in messages instead of the absolute path. */
  displayPath?: string;
}

export class GoldenStore {
  constructor(
    readonly policy: UpdatePolicy,
    readonly io: GoldenIO = fileGoldenIO,
    /** Paths in messages are shown relative to this folder. */
    readonly base: string = process.cwd(),
  ) {}

  read(path: string): Buffer | undefined {
    return this.io.read(path);
  }

  private show(path: string): string {
    return relative(this.base, path) || path;
  }

  /** Removes a stale candidate and stale mismatch images of a golden. */
  clean(path: string): void {
    const p = goldenPaths(path);
    for (const file of [p.candidate, p.actualImage, p.diffImage]) this.io.remove(file);
  }

  /** The one decision: given the comparison, write, rewrite, leave a candidate or clean up. */
  settle(input: SettleInput): GoldenResult {
    const shown = input.displayPath ?? this.show(input.path);
    const actual = typeof input.actual === 'string' ? Buffer.from(input.actual, 'utf8') : input.actual;
    const state = input.verdict === undefined ? 'missing' : input.verdict.pass ? 'matched' : 'differs';
    const d = decideGolden(this.policy.mode, state);
    if (d.writeGolden) this.io.write(input.path, actual);
    if (d.clean) this.clean(input.path);
    if (d.status === 'missing') {
      const why = this.policy.reason ?? 'the update mode is none';
      return {
        pass: false,
        status: 'missing',
        message: `golden ${shown} does not exist, and ${why}. Create it by running the test locally (missing goldens are written), or with TAPEDECK_UPDATE=new or vitest -u, then commit it.`,
        artifacts: [],
      };
    }
    if (d.status !== 'mismatch') {
      const message = d.status === 'written' ? `wrote new golden ${shown}` : d.status === 'updated' ? `updated golden ${shown}` : `matches ${shown}`;
      return { pass: true, status: d.status, message, artifacts: [] };
    }
    const artifacts: string[] = [];
    if (d.writeCandidate) {
      const candidate = goldenPaths(input.path).candidate;
      this.io.write(candidate, actual);
      artifacts.push(candidate);
    }
    artifacts.push(...(input.onMismatch?.() ?? []));
    const hint = 'If the change is intended, update the golden: vitest -u (or TAPEDECK_UPDATE=all), or accept the .new with `tapedeck review`.';
    const wrote = artifacts.length ? `wrote ${artifacts.map((a) => this.show(a)).join(', ')}\n` : '';
    return { pass: false, status: 'mismatch', message: `${input.verdict?.message ?? `differs from golden ${shown}`}\n${wrote}${hint}`, artifacts };
  }

  /** Reads the golden, compares it with `actual` (byte-equal always passes) and settles. */
  check(check: GoldenCheck): GoldenResult {
    const actual = typeof check.actual === 'string' ? Buffer.from(check.actual, 'utf8') : check.actual;
    const expected = this.read(check.path);
    const verdict = expected === undefined ? undefined : expected.equals(actual) ? { pass: true } : check.compare(expected);
    return this.settle({ path: check.path, actual, verdict, displayPath: check.displayPath, onMismatch: expected && check.onMismatch ? () => check.onMismatch!(expected) : undefined });
  }
}

export interface GoldenCheck {
  /** Absolute path of the golden. */
  path: string;
  /** What would be stored. */
  actual: Buffer | string;
  /** Compares an existing golden with `actual`; the message explains a mismatch. */
  compare: (expected: Buffer) => GoldenVerdict;
  /** Called on a mismatch that is not being accepted (e.g. write actual and diff images beside it). */
  onMismatch?: (expected: Buffer) => string[] | void;
  /** Shown in messages instead of the absolute path. */
  displayPath?: string;
}

/** One-shot check with a policy (the store's read-compare-settle). */
export function checkGolden(check: GoldenCheck & { policy: UpdatePolicy }): GoldenResult {
  return new GoldenStore(check.policy).check(check);
}
