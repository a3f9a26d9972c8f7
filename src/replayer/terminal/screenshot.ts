import { relative, resolve } from 'node:path';
import { resolveUpdatePolicy, type UpdateMode, type UpdatePolicy } from '../../core/config/ci.js';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { GoldenStore, type GoldenStatus } from '../../core/golden/store.js';
import { safeName } from '../../core/golden/paths.js';
import type { ScreenMask } from '../../render/golden-text.js';
import { PngError } from '../../render/pixel/png.js';
import { comparePngs, describeMismatch, validateCompareOptions, writeMismatchArtifacts, type PixelCompareOptions, type PixelComparison } from '../../render/pixel/diff.js';
import { profileForCast, type RenderProfile } from '../../render/profiles.js';
import { rasterEngine, renderSnapshot } from '../../render/raster/render.js';
import type { CursorMode } from '../../render/browser/repaint.js';
import type { ScreenSnapshot } from '../../session/screen/screen.js';
import type { Drift } from '../../core/diagnostics/drift.js';
import { terminalDrift } from './drift.js';
import type { PlannedStep, TerminalPlan } from './plan.js';

/**
 * Screenshot goldens at terminal-replay checkpoints: at each marker the live
 * screen (the very frame the text comparison accepted) is rendered by the
 * screenshot renderer, masks painted over as the text comparison hides them,
 * and compared with `<cast without .cast>.<marker>.png` beside the tape
 * through the golden store, so update modes behave as for every other golden.
 */
export interface ScreenshotCheckpointOptions extends PixelCompareOptions {
  /** Render profile name (reference-dark, reference-light; aliases dark, light) or object; default reference-dark (or TAPEDECK_PROFILE). */
  profile?: string | RenderProfile;
  /** auto (default) follows the program; show/hide force the cursor. */
  cursor?: CursorMode;
  /**
   * How goldens are written, resolved once by the caller: default `all` when
   * the replay updates the tape (`update: true`), else resolveUpdatePolicy()
   * (`new` locally, `none` on CI, TAPEDECK_UPDATE overrides).
   */
  updateMode?: UpdateMode | UpdatePolicy;
}

/** What happened to one checkpoint's screenshot golden. */
export interface CheckpointScreenshot {
  step: number;
  marker: string;
  /** Cast line of the marker. */
  line: number;
  /** Absolute path of the PNG golden. */
  golden: string;
  status: GoldenStatus;
  /** Files written beside the golden on a mismatch (`.new`, `.actual.png`, `.diff.png`). */
  artifacts: string[];
}

/**
 * `<cast without .cast>.<marker made file-safe>.png`; a marker name that
 * comes again in the same tape gets `-2`, `-3`, ... (in tape order), so every
 * checkpoint has its own golden.
 */
export function checkpointScreenshotPaths(plan: TerminalPlan): Map<number, string> {
  const stem = resolve(plan.path).replace(/\.cast$/i, '');
  const seen = new Map<string, number>();
  const paths = new Map<number, string>();
  for (const step of plan.steps) {
    if (step.kind !== 'marker' || step.marker === undefined) continue;
    const name = safeName(step.marker);
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    paths.set(step.step, `${stem}.${name}${n > 1 ? `-${n}` : ''}.png`);
  }
  return paths;
}

export class CheckpointScreenshots {
  readonly results: CheckpointScreenshot[] = [];
  private readonly paths: Map<number, string>;
  private readonly store: GoldenStore;
  private readonly compareOptions: PixelCompareOptions;

  /** The tape's own colours unless a profile was chosen. */
  private readonly profile: RenderProfile;

  constructor(
    private readonly plan: TerminalPlan,
    private readonly options: ScreenshotCheckpointOptions,
    private readonly mask: readonly ScreenMask[] | undefined,
    update: boolean,
  ) {
    // Bad options are usage errors before any program starts.
    this.compareOptions = validateCompareOptions(options);
    this.profile = profileForCast(options.profile, plan.header.theme);
    const mode = options.updateMode;
    this.store = new GoldenStore(typeof mode === 'string' ? { mode } : mode ?? resolveUpdatePolicy(update ? 'all' : undefined));
    this.paths = checkpointScreenshotPaths(plan);
  }

  /** Goldens are rewritten with whatever the live run shows (update mode all). */
  get updatesAll(): boolean {
    return this.store.policy.mode === 'all';
  }

  /** The tape has checkpoints to render. */
  get needed(): boolean {
    return this.paths.size > 0;
  }

  /**
   * Loads the renderer (the rasteriser and the pinned fonts) before the program
   * starts, so a missing one is an exit-6 error naming the tape before anything ran.
   */
  async prepare(): Promise<void> {
    const first = this.plan.steps.find((s) => this.paths.has(s.step));
    if (!first) return;
    try {
      rasterEngine();
    } catch (err) {
      throw this.rendererError(first, err);
    }
  }

  /**
   * Compares the screenshot of `snap` (taken with cells) with the marker's
   * golden; a drift when it differs, or is missing where goldens are never
   * written (CI).
   */
  async check(step: PlannedStep, snap: ScreenSnapshot): Promise<Drift | undefined> {
    const golden = this.paths.get(step.step);
    if (!golden) return undefined;
    let png: Buffer;
    try {
      png = (await renderSnapshot(snap, { profile: this.profile, cursor: this.options.cursor, mask: this.mask })).png;
    } catch (err) {
      throw this.rendererError(step, err);
    }
    const displayPath = relative(process.cwd(), golden) || golden;
    let last: PixelComparison | undefined;
    const checked = this.guardGolden(golden, displayPath, () => this.store.check({
      path: golden,
      displayPath,
      actual: png,
      compare: (expected) => {
        last = comparePngs(expected, png, this.compareOptions);
        return { pass: last.pass, message: describeMismatch(displayPath, last, []) };
      },
      onMismatch: (expected) => (last ? writeMismatchArtifacts(golden, expected, png, last, this.compareOptions.threshold) : []),
    }));
    this.results.push({ step: step.step, marker: step.marker!, line: step.at.line, golden, status: checked.status, artifacts: checked.artifacts });
    if (checked.pass) return undefined; // the store removed the images of an earlier mismatch
    if (last?.otherRenderer) {
      // Not drift: the program may draw the same screen; the golden's pixels come from another renderer.
      throw new TapedeckError('INVALID_GOLDEN', `checkpoint ${step.description}: ${last.message} (replay --screenshots --update)`, {
        location: { file: displayPath },
        details: { golden, otherRenderer: last.otherRenderer },
      });
    }
    const shown = (p: string) => relative(process.cwd(), p) || p;
    const details =
      checked.status === 'missing'
        ? [checked.message]
        : [
            last ? last.message : `differs from golden ${displayPath}`,
            `golden: ${displayPath}`,
            ...checked.artifacts.map((a) => `${a.endsWith('.diff.png') ? 'diff' : a.endsWith('.actual.png') ? 'actual' : 'candidate'}: ${shown(a)}`),
            'If the change is intended, accept it: replay --screenshots --update (vitest -u, TAPEDECK_UPDATE=all), or `tapedeck review`.',
          ];
    const title =
      checked.status === 'missing'
        ? `checkpoint ${step.description}: screenshot golden ${displayPath} is missing`
        : `checkpoint ${step.description}: screenshot differs from ${displayPath}`;
    // No `actual` screen text: the text matched; what differs are pixels, named by the files above.
    return terminalDrift(this.plan, step, 'TD1106', title, details, step.expected);
  }

  /** A golden that is not a readable PNG is an exit-2 error naming it, not a crash. */
  private guardGolden<T>(golden: string, displayPath: string, work: () => T): T {
    try {
      return work();
    } catch (err) {
      if (!(err instanceof PngError)) throw err;
      throw new TapedeckError('INVALID_GOLDEN', `screenshot golden is not a valid PNG (${err.message}); delete it to write it afresh, or restore it`, {
        location: { file: displayPath },
        details: { golden },
        cause: err,
      });
    }
  }

  private rendererError(step: PlannedStep, err: unknown): TapedeckError {
    const location = { file: this.plan.path, line: step.at.line };
    const lead = `checkpoint screenshot of ${step.description} (--screenshots)`;
    if (err instanceof TapedeckError) {
      return new TapedeckError(err.code, `${lead}: ${err.message}`, { location, details: err.details, cause: err });
    }
    const first = String((err as Error)?.message ?? err).split('\n')[0];
    return new TapedeckError('RENDERER_UNAVAILABLE', `${lead}: the screenshot renderer failed: ${first}. Check it with \`tapedeck doctor\`.`, {
      location,
      cause: err,
    });
  }
}
