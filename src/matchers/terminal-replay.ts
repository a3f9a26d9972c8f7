import { resolveReplaySettings } from '../replayer/settings.js';
import { unacceptedDrifts } from '../replayer/replay-tapes.js';
import type { ScreenMask } from '../render/golden-text.js';
import { replayTerminal, type ScreenshotCheckpointOptions, type TerminalReplayOptions } from '../replayer/terminal/replay.js';
import { displayPath, updatePolicyFor, usedGoldens, type MatcherStateLike } from './context.js';
import { recordGolden } from './summary.js';
import { replayVerdict } from './format.js';

export interface TerminalReplayMatcherOptions {
  /** Masks added to tapedeck.config.json's: RegExps (or regex strings) per line, or cell rectangles. */
  mask?: readonly (ScreenMask | string)[];
  styles?: boolean;
  /**
   * Also pixel-compare each marker's screen with `<cast without .cast>.<marker>.png`
   * beside the cast (as `tapedeck replay --screenshots`); goldens follow this
   * test's update mode (written when missing locally, never on CI, rewritten by -u).
   */
  screenshots?: boolean | ScreenshotCheckpointOptions;
  stepTimeoutMs?: number;
  /** Stop at the first drift. */
  bail?: boolean;
  realtime?: boolean;
  env?: Record<string, string | undefined>;
  /** Default: where the tape was recorded (see replayTerminal). */
  cwd?: string;
  /** `fresh` (default): an empty temporary HOME; `inherit`: the caller's. */
  home?: 'fresh' | 'inherit';
}

function isCommand(value: unknown): value is string[] {
  return Array.isArray(value) && value.length > 0 && value.every((c) => typeof c === 'string');
}

/**
 * toReplayCleanly for terminal tapes (.cast): `expect(cast).toReplayCleanly()`,
 * `.toReplayCleanly(options)` or `.toReplayCleanly(['vim', '-u', 'NONE'], options)`.
 * The same replay as `tapedeck replay`; under -u the tape is re-recorded.
 */
export async function replayCastCleanly(ctx: MatcherStateLike, cast: string, commandOrOptions?: unknown, maybeOptions?: unknown) {
  const command = isCommand(commandOrOptions) ? commandOrOptions : undefined;
  if (commandOrOptions !== undefined && !command && (typeof commandOrOptions !== 'object' || commandOrOptions === null || Array.isArray(commandOrOptions))) {
    throw new TypeError('toReplayCleanly: for a .cast, give an optional command as an array of strings and/or an options object');
  }
  const options = ((command ? maybeOptions : commandOrOptions) ?? {}) as TerminalReplayMatcherOptions;
  const mask: ScreenMask[] = resolveReplaySettings({ cwd: options.cwd, mask: options.mask }).masks;
  const policy = updatePolicyFor(ctx);
  const update = policy.mode === 'all';
  const screenshots = options.screenshots ? { updateMode: policy, ...(options.screenshots === true ? {} : options.screenshots) } : undefined;
  // As the CLI: a drifted tape leaves its re-recording as <tape>.new for review (not on CI, not under -u).
  const writePending = policy.mode === 'new';
  const replayOptions: TerminalReplayOptions = { command, mask, styles: options.styles, stepTimeoutMs: options.stepTimeoutMs, bail: options.bail, realtime: options.realtime, env: options.env, cwd: options.cwd, home: options.home, update, writePending, screenshots };
  const result = await replayTerminal(cast, replayOptions);
  // The checkpoint goldens are in use: never reported (or removed) as obsolete.
  for (const shot of result.screenshots ?? []) {
    usedGoldens.add(shot.golden);
    recordGolden(shot, shot.golden);
  }
  recordGolden({ status: result.updated ? 'updated' : result.pendingPath ? 'mismatch' : 'matched', artifacts: result.pendingPath ? [result.pendingPath] : [] }, cast);
  return replayVerdict(displayPath(cast), unacceptedDrifts(result), `${result.steps.length} steps`, result.pendingPath);
}
