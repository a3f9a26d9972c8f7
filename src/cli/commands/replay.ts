import { availableParallelism } from 'node:os';
import { usageError } from '../../core/errors.js';
import { compileRegex } from '../../core/normalise.js';
import { parseMaskRectFlag } from '../../core/mask.js';
import { driftToEnvelope } from '../../replayer/envelopes.js';
import { replayTapes, type ReplayTapesResult } from '../../replayer/replay-tapes.js';
import { parseShard } from '../../replayer/run.js';
import { resolveReplaySettings } from '../../replayer/settings.js';
import { resolveUpdatePolicy } from '../../core/ci.js';
import type { TransportTarget } from '../../replayer/transport-replay.js';
import { writeFileAtomic } from '../../core/atomic-write.js';
import { githubAnnotations, junitXml } from '../../report/ci-reports.js';
import { runSummary, summariseTape } from '../../report/summary.js';
import { ProgressLine } from '../progress.js';
import type { ScreenshotCheckpointOptions, TerminalTapeResult } from '../../replayer/terminal.js';
import { DEFAULT_STEP_TIMEOUT_MS } from '../../replayer/terminal-defaults.js';
import { profileNames, resolveProfile } from '../../render/profiles.js';
import { relative } from 'node:path';
import { parseIntOption, parseOptions, splitCommand } from '../args.js';
import { normaliserOptionSpec } from '../normaliser-options.js';
import { formatReplayText } from '../../report/text.js';
import { projectTrust } from '../../replayer/tape-trust.js';

const HELP = `usage: tapedeck replay TAPE... [options] [-- CMD ARGS...]

Replays each tape against a fresh process and reports every difference.
Protocol tapes (.ndjson, .jsonl): each request is sent to a fresh CMD and every
response compared with the recorded one. Terminal tapes (.cast): the recorded
command runs in a fresh PTY of the recorded size; each recorded input is sent
once the screen shows what the recording showed before it; markers are
checkpoints; the final screen and exit status are compared.
CMD is required for protocol tapes. With terminal tapes only, CMD replaces
their recorded command; in a run mixing both kinds, CMD goes to the protocol
tapes and terminal tapes use their own. A terminal tape's recorded command runs
only when the tape is in this project (under its goldens folder, or under the
folder of tapedeck.config.json); for any other tape give CMD or --trust-tape.
Exit 0: no drift; 1: drift; 2: bad input, unreadable tape, or CMD cannot start.

options:
  --transport T        stdio, http or unix (default: the one each tape was recorded on):
                       each request sent the way the tape recorded it (HTTP method, path,
                       batch, MCP session; socket sessions). CMD then says where to listen
                       with {{port}} or {{socket}}; a fresh server per tape
  --url URL            replay over HTTP against a running server instead (http://HOST:PORT)
  --socket PATH        replay over a Unix socket against a running server instead
  --auth-token T       bearer token for pairs recorded with one
  --boundary RULE      auto (default), done, jsonrpc, idle:MS
  --timeout-ms N       a response not complete after N ms is drift (default 10000)
  --ignore JSONPATH    ignore a volatile JSON value on both sides (repeatable)
  --filter RE=REPL     rewrite volatile bytes on both sides before comparing (repeatable)
  --ignore-key-order   compare JSON objects whatever the order of their keys
  --config FILE        normalisers (also scoped per method, tool or op), masks and defaults
                       (default ./tapedeck.config.json if present)
  --max-response-bytes N
                       a response larger than N bytes is drift TD1006 (default 67108864, 64 MiB)
  --allow-empty        an empty protocol tape is clean (default: exit 2)
  --single-shot        seed 000 single-shot servers: per pair a fresh CMD, the request, stdin
                       closed, the output to exit compared and the done line's exit code checked
  --setup SHELLCMD     run SHELLCMD (sh -c) in each tape's fresh scratch directory before its server;
                       {{tapedeck.tmpdir}} in CMD or the tape, and $TAPEDECK_TMPDIR, name that directory
  --update             protocol: rewrite drifted pairs with the live responses;
                       terminal: re-record the output from the live run, keeping the
                       inputs, markers and resizes (atomically)
  --redact-env NAME    redact NAME's value in rewritten responses (repeatable)
  --jobs N             tapes replayed at once (default: number of cores)
  --shard i/n          replay only shard i of n of the sorted tapes
  --json               one seed-001 drift envelope per drift on stdout (nothing else), and a
                       {"kind":"summary",...} line on stderr
  --json-summary       with --json: the summary line last on stdout instead
  --report FILE        write a self-contained HTML report of the run (drifts, screens, players)
  --reporter junit --out FILE
                       write JUnit XML for CI (one test case per tape)
  A drifted tape (not on CI, not --update) leaves <tape>.new for \`tapedeck review\`.
  With GITHUB_ACTIONS=true, each drift is also a workflow annotation at its tape line.

terminal tapes:
  --mask REGEX         hide matches on each screen line on both sides (repeatable)
  --mask-rect R,C,W[,H]  hide a rectangle of cells (0-based row and column; repeatable)
  --styles             compare colours and attributes at checkpoints too
  --step-timeout-ms N  how long a step may wait for its screen (default ${DEFAULT_STEP_TIMEOUT_MS})
  --trust-tape         run the command a terminal tape records even when the tape is
                       not in this project (only for tapes you trust: it runs as you)
  --bail               stop a tape at its first drift (default: send the input anyway, go on)
  --realtime           wait the recorded interval before each step
  --cwd DIR            run the program in DIR (default: where the tape was recorded,
                       found from the tape's folder first, then as an absolute path;
                       else the current directory)
  --home fresh|inherit HOME for the program: a fresh empty temporary directory per
                       replay (default; nothing a program saves reaches the next run)
                       or the caller's
  --screenshots        at each marker also render the live screen (Chromium; masks painted
                       over) and pixel-compare it with <tape without .cast>.<marker>.png
                       beside the tape: written when missing (not on CI), rewritten with
                       --update; a difference is drift TD1106 and leaves <golden>.actual.png
                       and <golden>.diff.png beside it. Exit 6 when Chromium is unavailable.
  pixel allowances for --screenshots (Playwright toHaveScreenshot's meanings):
  --threshold T        per-pixel colour distance, 0..1 (default 0.2)
  --max-diff-pixels N  how many pixels may differ (default 0)
  --max-diff-pixel-ratio R
                       what fraction of the pixels may differ, 0..1 (default 0)
  --profile NAME       render profile: ${profileNames().join(', ')} (aliases dark, light; default reference-dark, or TAPEDECK_PROFILE)
`;

export async function run(argv: string[]): Promise<number> {
  const { own, command } = splitCommand(argv);
  if (own.includes('--help') || own.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { values, positionals } = parseOptions('replay', own, {
    ...normaliserOptionSpec,
    transport: { type: 'string' },
    url: { type: 'string' },
    socket: { type: 'string' },
    'auth-token': { type: 'string' },
    boundary: { type: 'string' },
    'timeout-ms': { type: 'string' },
    update: { type: 'boolean', default: false },
    'allow-empty': { type: 'boolean', default: false },
    'single-shot': { type: 'boolean', default: false },
    setup: { type: 'string' },
    'max-response-bytes': { type: 'string' },
    'redact-env': { type: 'string', multiple: true, default: [] },
    jobs: { type: 'string' },
    shard: { type: 'string' },
    json: { type: 'boolean', default: false },
    'json-summary': { type: 'boolean', default: false },
    mask: { type: 'string', multiple: true, default: [] },
    'mask-rect': { type: 'string', multiple: true, default: [] },
    styles: { type: 'boolean', default: false },
    'step-timeout-ms': { type: 'string' },
    bail: { type: 'boolean', default: false },
    realtime: { type: 'boolean', default: false },
    cwd: { type: 'string' },
    home: { type: 'string' },
    screenshots: { type: 'boolean', default: false },
    'trust-tape': { type: 'boolean', default: false },
    threshold: { type: 'string' },
    'max-diff-pixels': { type: 'string' },
    'max-diff-pixel-ratio': { type: 'string' },
    profile: { type: 'string' },
    report: { type: 'string' },
    reporter: { type: 'string' },
    out: { type: 'string' },
  });
  if (values.reporter !== undefined && values.reporter !== 'junit') throw usageError(`replay: --reporter supports junit, got ${JSON.stringify(values.reporter)}`);
  if ((values.reporter === undefined) !== (values.out === undefined)) throw usageError('replay: --reporter junit and --out FILE go together');
  if (positionals.length === 0) throw usageError('replay: give at least one tape (paths or globs)');
  const screenshots = screenshotOptions(values);
  const transport = transportTarget(values);
  const { config, masks, ...resolved } = resolveReplaySettings({
    config: values.config,
    ignore: values.ignore,
    filter: values.filter,
    ignoreKeyOrder: values['ignore-key-order'],
    boundary: values.boundary,
    timeoutMs: values['timeout-ms'] === undefined ? undefined : parseIntOption('timeout-ms', values['timeout-ms'], 0, 1),
    maxResponseBytes: values['max-response-bytes'] === undefined ? undefined : parseIntOption('max-response-bytes', values['max-response-bytes'], 0, 1, Number.MAX_SAFE_INTEGER),
    mask: [...values.mask.map((m) => compileRegex(m, '--mask')), ...values['mask-rect'].map(parseMaskRectFlag)],
  });
  // The update policy, resolved once: candidates for `tapedeck review` except where nothing is written
  // (CI, TAPEDECK_UPDATE=none) and when updating in place.
  const writePending = !values.update && resolveUpdatePolicy().mode !== 'none';
  const protocol = {
    ...resolved,
    update: values.update,
    writePending,
    redactEnv: values['redact-env'],
    allowEmpty: values['allow-empty'],
    singleShot: values['single-shot'],
    setup: values.setup,
  };
  const jobs = parseIntOption('jobs', values.jobs, availableParallelism(), 1);
  const shard = values.shard ? parseShard(values.shard) : undefined;
  const color = process.stderr.isTTY === true && !process.env.NO_COLOR;
  const progress = new ProgressLine(process.stderr.isTTY === true);
  const startedAt = new Date();
  try {
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
          update: values.update,
          writePending,
          ...(values['trust-tape'] ? {} : { trust: projectTrust({ configPath: config.path, goldens: config.goldens }) }),
          ...(screenshots ? { screenshots } : {}),
        },
        jobs,
        shard,
        onTapeDone: (tape, done, total) => progress.show(`replayed ${done}/${total} tapes${tape.drifts.length ? ` (drift in ${tape.tape})` : ''}`),
      });
    } finally {
      progress.clear();
    }
    if (values.json) writeJson(result, values['json-summary']);
    if (screenshots) process.stderr.write(screenshotLines(result));
    process.stderr.write(formatReplayText(result, { color }));
    if (process.env.GITHUB_ACTIONS === 'true') (values.json ? process.stderr : process.stdout).write(githubAnnotations(result.tapes.map(summariseTape)));
    if (values.out) {
      writeFileAtomic(values.out, junitXml(result.tapes.map(summariseTape), result.durationMs));
      process.stderr.write(`tapedeck: wrote JUnit XML to ${values.out}\n`);
    }
    if (values.report) {
      const { reportFromRun } = await import('../../report/from-run.js');
      const { renderHtmlReport } = await import('../../report/html.js');
      const { closeRenderer } = await import('../../render/renderer.js');
      const report = await reportFromRun(result, { startedAt, screenshots: result.tapes.some((t) => t.kind === 'terminal' && t.drifts.length > 0) });
      await closeRenderer();
      writeFileAtomic(values.report, renderHtmlReport(report));
      process.stderr.write(`tapedeck: wrote the report to ${values.report}\n`);
    }
    return result.exitCode;
  } finally {
    // The browser the checkpoints started must not keep the process alive.
    if (screenshots) await (await import('../../render/renderer.js')).closeRenderer();
  }
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
function screenshotOptions(values: { screenshots: boolean; update: boolean; threshold?: string; 'max-diff-pixels'?: string; 'max-diff-pixel-ratio'?: string; profile?: string }): ScreenshotCheckpointOptions | undefined {
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
    updateMode: resolveUpdatePolicy(values.update ? 'all' : undefined),
  };
  resolveProfile(options.profile); // an unknown profile is exit 2 before anything runs
  return options;
}

/** One line per screenshot golden written or rewritten (drifts are in the summary already). */
function screenshotLines(result: ReplayTapesResult): string {
  const lines: string[] = [];
  for (const tape of result.tapes) {
    for (const shot of (tape as TerminalTapeResult).screenshots ?? []) {
      const shown = relative(process.cwd(), shot.golden) || shot.golden;
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
function writeJson(result: ReplayTapesResult, summaryOnStdout: boolean): void {
  const out: string[] = [];
  for (const tape of result.tapes) for (const d of tape.drifts) out.push(JSON.stringify(driftToEnvelope(d)));
  const summary = JSON.stringify(runSummary(result));
  if (summaryOnStdout) out.push(summary);
  else process.stderr.write(`${summary}\n`);
  if (out.length > 0) process.stdout.write(`${out.join('\n')}\n`);
}

function parseHome(value: string | undefined): 'fresh' | 'inherit' {
  if (value === undefined || value === 'fresh' || value === 'inherit') return value ?? 'fresh';
  throw usageError(`replay: --home takes fresh or inherit, got ${JSON.stringify(value)}`);
}
