import { jsonForTerminal } from '../../core/text/terminal-safe.js';
/** What `tapedeck replay` (and `tapedeck report`) runs once its options are parsed: loaded only then (replay.ts holds the definition and help). */
import { availableParallelism } from 'node:os';
import { usageError } from '../../core/diagnostics/errors.js';
import { type Boundary, pairByBoundary } from '../../core/framing/boundary.js';
import { compileRegex } from '../../core/text/normalise.js';
import { parseMaskRectFlag } from '../../core/text/mask.js';
import { replayTapes, type ReplayTapesResult } from '../../replayer/replay-tapes.js';
import { parseShard } from '../../replayer/run.js';
import { parsePace } from '../../replayer/pace.js';
import { resolveReplaySettings } from '../../replayer/settings.js';
import { resolveUpdatePolicy } from '../../core/config/ci.js';
import type { TransportTarget } from '../../replayer/transport/replay.js';
import { writeFileAtomic } from '../../core/files/atomic-write.js';
import { runSummary, summariseTape } from '../../report/summary.js';
import { ProgressLine } from '../progress.js';
import type { CliIO } from '../io.js';
import type { ScreenshotCheckpointOptions, TerminalTapeResult } from '../../replayer/terminal/replay.js';
import { DEFAULT_STEP_TIMEOUT_MS } from '../../replayer/terminal/defaults.js';
import { relative, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { parseIntOption } from '../args.js';
import type { CommandContext } from '../command.js';
import type { replayOptions } from '../replay-options.js';
import { formatReplayText } from '../../report/text.js';
import { projectTrust } from '../../replayer/tape-trust.js';

/** A parsed replay (also what `tapedeck report` runs). */
export async function replay({ values, positionals, command, io }: CommandContext<typeof replayOptions>): Promise<number> {
  const reporter = values.reporter === 'github-actions' ? 'github' : values.reporter;
  if (reporter !== undefined && reporter !== 'junit' && reporter !== 'github' && reporter !== 'json') throw usageError(`replay: --reporter takes junit, github or json, got ${JSON.stringify(values.reporter)}`);
  if (values.out !== undefined && reporter === undefined) throw usageError('replay: --out FILE says where --reporter writes; add --reporter junit|github|json');
  if (reporter !== undefined && values.out === undefined && values.json) throw usageError('replay: --json and --reporter both write to stdout; give the reporter --out FILE');
  if (positionals.length === 0) throw usageError('replay: give at least one tape (paths or globs)');
  const screenshots = screenshotOptions(values, io.env);
  // An unknown profile is exit 2 before anything runs; the profiles load only for screenshots.
  if (screenshots) (await import('../../render/profiles.js')).resolveProfile(screenshots.profile);
  const transport = transportTarget(values);
  if (values['single-shot'] && transport && transport.transport !== 'auto') {
    throw usageError(`replay: --single-shot starts a fresh server per pair and talks to it over stdio; it does not apply to --transport ${transport.transport}`);
  }
  const { config, masks, ...resolved } = resolveReplaySettings({
    config: values.config,
    cwd: io.cwd,
    ignore: values.ignore,
    filter: values.filter,
    ignoreKeyOrder: values['ignore-key-order'],
    boundary: values['pair-by'] !== undefined ? pairBy(values['pair-by'], values.boundary) : values.boundary,
    timeoutMs: values['timeout-ms'] === undefined ? undefined : parseIntOption('timeout-ms', values['timeout-ms'], 0, 1),
    maxResponseBytes: values['max-response-bytes'] === undefined ? undefined : parseIntOption('max-response-bytes', values['max-response-bytes'], 0, 1, Number.MAX_SAFE_INTEGER),
    mask: [...values.mask.map((m) => compileRegex(m, '--mask')), ...values['mask-rect'].map(parseMaskRectFlag)],
  });
  // The update policy, resolved once: candidates for `tapedeck review` except where nothing is written
  // (CI, TAPEDECK_UPDATE=none) and when updating in place.
  const writePending = !values.update && resolveUpdatePolicy(undefined, io.env).mode !== 'none';
  const protocol = {
    ...resolved,
    update: values.update,
    writePending,
    redactEnv: values['redact-env'],
    allowEmpty: values['allow-empty'],
    singleShot: values['single-shot'],
    pace: parsePace(values.pace, 'replay'),
    setup: values.setup,
    env: io.env,
    cwd: io.cwd,
  };
  const jobs = parseIntOption('jobs', values.jobs, availableParallelism(), 1);
  const shard = values.shard ? parseShard(values.shard) : undefined;
  const color = io.stderr.isTTY === true && !io.env.NO_COLOR;
  const progress = new ProgressLine(io.stderr.isTTY === true, io.stderr);
  const startedAt = new Date();
  let result: ReplayTapesResult;
  try {
    result = await replayTapes(positionals, {
      command,
      protocol,
      transport,
      terminal: {
        mask: masks,
        styles: values.styles,
        stepTimeoutMs: parseIntOption('step-timeout-ms', values['step-timeout-ms'], DEFAULT_STEP_TIMEOUT_MS, 1),
        bail: values.bail,
        realtime: values.realtime,
        cwd: values.cwd,
        home: parseHome(values.home),
        baseEnv: io.env,
        baseCwd: io.cwd,
        update: values.update,
        writePending,
        ...(values['trust-tape'] ? {} : { trust: projectTrust({ configPath: config.path, goldens: config.goldens, cwd: io.cwd }) }),
        ...(screenshots ? { screenshots } : {}),
      },
      jobs,
      shard,
      onTapeDone: (tape, done, total) => progress.show(`replayed ${done}/${total} tapes${tape.drifts.length ? ` (drift in ${tape.tape})` : ''}`),
    });
  } finally {
    progress.clear();
  }
  if (!values.json && values['include-source']) throw usageError('replay: --include-source goes with --json');
  if (values.json) await writeJson(result, values['json-summary'], io, values['include-source']);
  if (screenshots) io.stderr.write(screenshotLines(result, io.cwd));
  io.stderr.write(formatReplayText(result, { color }));
  // The CI formats load only for CI: GitHub annotations, JUnit XML, the job summary.
  const onActions = io.env.GITHUB_ACTIONS === 'true';
  const ci = onActions || reporter ? await import('../../report/ci-reports.js') : undefined;
  const stdoutTaken = values.json || (reporter !== undefined && values.out === undefined);
  if (onActions && reporter !== 'github') (stdoutTaken ? io.stderr : io.stdout).write(ci!.githubAnnotations(result.tapes.map(summariseTape)));
  if (reporter) {
    const tapes = result.tapes.map(summariseTape);
    const text = reporter === 'junit' ? ci!.junitXml(tapes, result.durationMs) : reporter === 'github' ? ci!.githubAnnotations(tapes) : `${JSON.stringify({ ...runSummary(result), tapes }, null, 2)}\n`;
    if (values.out) {
      writeFileAtomic(values.out, text);
      io.stderr.write(`tapedeck: wrote the ${reporter} report to ${values.out}\n`);
    } else io.stdout.write(text);
  }
  if (io.env.GITHUB_STEP_SUMMARY) {
    const { appendStepSummary, summaryMarkdown, tapeRows } = await import('../../report/step-summary.js');
    const rows = tapeRows(result.tapes.map(summariseTape), io.cwd);
    const clean = `${result.tapes.length} tape(s) replayed cleanly.`;
    appendStepSummary(summaryMarkdown('tapedeck replay', rows, clean, values.report ? relative(io.cwd, values.report) : undefined), io.env);
  }
  if (values.report) {
    const { reportFromRun } = await import('../../report/from-run.js');
    const { renderHtmlReport } = await import('../../report/html.js');
    const report = await reportFromRun(result, { startedAt, screenshots: result.tapes.some((t) => t.kind === 'terminal' && t.drifts.length > 0) });
    writeFileAtomic(values.report, renderHtmlReport(report));
    io.stderr.write(`tapedeck: wrote the report to ${values.report}\n`);
  }
  return result.exitCode;
}

/** --transport/--url/--socket/--auth-token; undefined for stdio; without --transport, each tape's own. */
function transportTarget(values: { transport?: string; url?: string; socket?: string; 'auth-token'?: string }): TransportTarget | { transport: 'auto'; authToken?: string } | undefined {
  const kind = values.transport ?? (values.url ? 'http' : values.socket ? 'unix' : 'auto');
  if (kind !== 'stdio' && kind !== 'http' && kind !== 'unix' && kind !== 'auto') throw usageError(`replay: --transport must be stdio, http or unix, got ${JSON.stringify(kind)}`);
  if (kind === 'stdio') {
    if (values['auth-token'] !== undefined) throw usageError('replay: --auth-token applies to --transport http');
    return undefined;
  }
  if (kind === 'auto') return { transport: 'auto', authToken: values['auth-token'] };
  if (values.url !== undefined && kind !== 'http') throw usageError('replay: --url goes with --transport http');
  if (values.socket !== undefined && kind !== 'unix') throw usageError('replay: --socket goes with --transport unix');
  return { transport: kind, url: values.url, socket: values.socket, authToken: values['auth-token'] };
}

/** --screenshots and the pixel options; the pixel options alone are a usage error. */
function screenshotOptions(values: { screenshots: boolean; update: boolean; threshold?: string; 'max-diff-pixels'?: string; 'max-diff-pixel-ratio'?: string; profile?: string }, env: NodeJS.ProcessEnv): ScreenshotCheckpointOptions | undefined {
  const given = (['threshold', 'max-diff-pixels', 'max-diff-pixel-ratio', 'profile'] as const).filter((k) => values[k] !== undefined);
  if (!values.screenshots) {
    if (given.length > 0) throw usageError(`replay: --${given[0]} applies to checkpoint screenshots; add --screenshots`);
    return undefined;
  }
  const fraction = (name: string, value: string | undefined): number | undefined => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (value.trim() === '' || !(n >= 0 && n <= 1)) throw usageError(`--${name} expects a number from 0 to 1, got ${JSON.stringify(value)}`);
    return n;
  };
  const maxDiffPixels = values['max-diff-pixels'] === undefined ? undefined : parseIntOption('max-diff-pixels', values['max-diff-pixels'], 0, 0);
  const options: ScreenshotCheckpointOptions = {
    threshold: fraction('threshold', values.threshold),
    maxDiffPixels,
    maxDiffPixelRatio: fraction('max-diff-pixel-ratio', values['max-diff-pixel-ratio']),
    profile: values.profile,
    // --update rewrites goldens that differ; otherwise missing ones are written locally, never on CI.
    updateMode: resolveUpdatePolicy(values.update ? 'all' : undefined, env),
  };
  return options;
}

/** One line per screenshot golden written or rewritten (drifts are in the summary already). */
function screenshotLines(result: ReplayTapesResult, cwd: string): string {
  const lines: string[] = [];
  for (const tape of result.tapes) {
    for (const shot of (tape as TerminalTapeResult).screenshots ?? []) {
      const shown = relative(cwd, shot.golden) || shot.golden;
      if (shot.status === 'written') lines.push(`tapedeck: wrote new screenshot golden ${shown} (marker "${shot.marker}")`);
      else if (shot.status === 'updated') lines.push(`tapedeck: updated screenshot golden ${shown} (marker "${shot.marker}")`);
    }
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}


/**
 * One envelope per drift on stdout (only envelopes: a seed-001 reader expects
 * nothing else), and a summary line (with terminal counts when terminal tapes
 * ran) on stderr, or last on stdout with --json-summary.
 */
async function writeJson(result: ReplayTapesResult, summaryOnStdout: boolean, io: CliIO, includeSource: boolean): Promise<void> {
  const { driftToEnvelope, withSource } = await import('../../replayer/protocol/envelopes.js');
  const out: string[] = [];
  const files = new Map<string, string[] | undefined>();
  for (const tape of result.tapes) {
    for (const d of tape.drifts) {
      const env = driftToEnvelope(d);
      out.push(jsonForTerminal(includeSource ? withSource(env, files, (f) => readFileSync(resolve(io.cwd, f), 'utf8')) : env));
    }
  }
  const summary = jsonForTerminal(runSummary(result));
  if (summaryOnStdout) out.push(summary);
  else io.stderr.write(`${summary}\n`);
  if (out.length > 0) io.stdout.write(`${out.join('\n')}\n`);
}

function parseHome(value: string | undefined): 'fresh' | 'inherit' {
  if (value === undefined || value === 'fresh' || value === 'inherit') return value ?? 'fresh';
  throw usageError(`replay: --home takes fresh or inherit, got ${JSON.stringify(value)}`);
}

function pairBy(path: string, boundary: string | undefined): Boundary {
  if (boundary !== undefined) throw usageError('replay: --pair-by and --boundary both say where a response ends; give one');
  return pairByBoundary(path);
}
