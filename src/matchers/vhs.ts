import { resolve } from 'node:path';
import { TapedeckError } from '../core/diagnostics/errors.js';
import { formatDiagnostics } from '../tape/vhs/index.js';
import { displayPath as shown, projectRoot, updatePolicyFor, usedGoldens, type MatcherStateLike } from './context.js';
import { recordGolden } from './summary.js';

export interface VhsMatcherOptions {
  /** Honour every Sleep and typing delay in wall time, as VHS does. */
  realtime?: boolean;
  /** How Screenshot PNGs and GIF, video and frame pictures are compared (as toMatchScreenshot's): pixelmatch's 0..1 colour distance, default 0.2. */
  threshold?: number;
  /** How many pixels of a picture may differ (default 0). */
  maxDiffPixels?: number;
  /** What fraction of a picture's pixels may differ (default 0). */
  maxDiffPixelRatio?: number;
}

/**
 * `await expect('demo.tape').toMatchVhsOutputs()`: runs a VHS tape (relative
 * to the vitest project root) the way `tapedeck vhs` does and checks its
 * outputs (.txt/.ascii/.cast, .gif/.webm/.mp4/frames, Screenshot PNGs) with the test's update policy (vitest -u rewrites,
 * CI never writes, a mismatch leaves `.new` for `tapedeck review`).
 */
export async function toMatchVhsOutputs(this: MatcherStateLike & { isNot?: boolean }, received: unknown, options: VhsMatcherOptions = {}) {
  if (typeof received !== 'string') throw new TypeError('toMatchVhsOutputs: expected the path of a VHS tape (.tape)');
  if (this.isNot) throw new Error('toMatchVhsOutputs cannot be negated');
  const root = projectRoot(this.testPath);
  const tape = resolve(root, received);
  const { runVhsFiles } = await import('../replayer/vhs/index.js');
  const { threshold, maxDiffPixels, maxDiffPixelRatio } = options;
  const result = await runVhsFiles([tape], { cwd: root, env: process.env, policy: updatePolicyFor(this), realtime: options.realtime, pixel: { threshold, maxDiffPixels, maxDiffPixelRatio } });
  const t = result.tapes[0];
  if (t.errors) throw new TapedeckError('INVALID_INPUT', `toMatchVhsOutputs: ${shown(tape)} has errors:\n${formatDiagnostics(t.errors)}`);
  if (t.error) throw t.error;
  for (const c of t.checks) {
    if (!c.golden) continue;
    usedGoldens.add(c.path);
    recordGolden(c.golden, c.path);
  }
  const failed = t.checks.filter((c) => c.golden && !c.golden.pass);
  const checked = t.checks.filter((c) => c.golden).length;
  return {
    pass: failed.length === 0,
    message: () =>
      failed.length === 0
        ? `${shown(tape)}: ${checked} output${checked === 1 ? '' : 's'} match`
        : failed.map((c) => `${shown(tape)}:${c.output.at.line}: ${c.golden!.message}`).join('\n\n'),
  };
}
