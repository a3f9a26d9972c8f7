import type { OptionSpecs } from './command.js';
import { normaliserOptionSpec } from './normaliser-options.js';
import { DEFAULT_STEP_TIMEOUT_MS } from '../replayer/terminal/defaults.js';
import { PROFILE_NAMES } from '../render/profile-names.js';

/** replay's options, which report takes too (cli/commands/replay.ts, report.ts). */
const TERMINAL = 'terminal tapes';
export const PIXELS = "pixel allowances for --screenshots (Playwright toHaveScreenshot's meanings)";

export const replayOptions = {
  transport: {
    type: 'string',
    arg: 'T',
    help: 'stdio, http or unix (default: the one each tape was recorded on): each request sent the way the tape recorded it (HTTP method, path, batch, MCP session; socket sessions). CMD then says where to listen with {{port}} or {{socket}}; a fresh server per tape',
  },
  url: { type: 'string', arg: 'URL', help: 'replay over HTTP against a running server instead (http://HOST:PORT)' },
  socket: { type: 'string', arg: 'PATH', path: true, help: 'replay over a Unix socket against a running server instead' },
  'auth-token': { type: 'string', arg: 'T', help: 'bearer token for pairs recorded with one' },
  boundary: { type: 'string', arg: 'RULE', help: 'auto (default), done, jsonrpc, idle:MS, id:PATH' },
  'pair-by': { type: 'string', arg: 'PATH', help: 'plain NDJSON paired by an id at PATH (e.g. id), as recorded with --pair-by (--boundary id:PATH)' },
  'timeout-ms': { type: 'string', arg: 'N', help: 'a response not complete after N ms is drift (default 10000)' },
  ...normaliserOptionSpec,
  'max-response-bytes': { type: 'string', arg: 'N', help: 'a response larger than N bytes is drift TD1006 (default 67108864, 64 MiB)' },
  'allow-empty': { type: 'boolean', default: false, help: 'an empty protocol tape is clean (default: exit 2)' },
  pace: {
    type: 'string',
    arg: 'P',
    help: 'recorded (default): client messages that wait for no answer (a notification, a cancel after its request) go one at a time over stdio, each once the server has read the one before, as a live client sends them apart; none: at once',
  },
  'single-shot': {
    type: 'boolean',
    default: false,
    help: "seed 000 single-shot servers: per pair a fresh CMD, the request, stdin closed, the output to exit compared and the done line's exit code checked",
  },
  setup: {
    type: 'string',
    arg: 'SHELLCMD',
    help: "run SHELLCMD (sh -c) in each tape's fresh scratch directory before its server; {{tapedeck.tmpdir}} in CMD or the tape, and $TAPEDECK_TMPDIR, name that directory",
  },
  update: {
    type: 'boolean',
    short: 'u',
    default: false,
    help: '(-u, as vitest, Jest and Playwright) protocol: rewrite drifted pairs with the live responses; terminal: re-record the output from the live run, keeping the inputs, markers and resizes (atomically)',
  },
  'redact-env': { type: 'string', multiple: true, default: [] as string[], arg: 'NAME', help: "redact NAME's value in rewritten responses (repeatable)" },
  jobs: { type: 'string', arg: 'N', help: 'tapes replayed at once (default: number of cores)' },
  shard: { type: 'string', arg: 'i/n', help: 'replay only shard i of n of the sorted tapes' },
  json: { type: 'boolean', default: false, help: 'one seed-001 drift envelope per drift on stdout (nothing else), and a {"kind":"summary",...} line on stderr' },
  'json-summary': { type: 'boolean', default: false, help: 'with --json: the summary line last on stdout instead' },
  'include-source': { type: 'boolean', default: false, help: "with --json: each envelope's source window (seed 001: the tape line with one line each side)" },
  report: { type: 'string', arg: 'FILE', path: true, help: 'write a self-contained HTML report of the run (drifts, screens, players)' },
  reporter: {
    type: 'string',
    arg: 'junit|github|json',
    help: "a machine report, with vitest's meanings: junit (JUnit XML, one test case per tape), github (GitHub Actions annotations, one per drift; also github-actions), json (the run summary and every tape's drifts); on stdout, or to --out FILE",
  },
  out: { type: 'string', arg: 'FILE', path: true, help: 'where --reporter writes (default: stdout)' },
  mask: { type: 'string', multiple: true, default: [] as string[], arg: 'REGEX', section: TERMINAL, help: 'hide matches on each screen line on both sides (repeatable)' },
  'mask-rect': { type: 'string', multiple: true, default: [] as string[], arg: 'R,C,W[,H]', section: TERMINAL, help: 'hide a rectangle of cells (0-based row and column; repeatable)' },
  styles: { type: 'boolean', default: false, section: TERMINAL, help: 'compare colours and attributes at checkpoints too' },
  'step-timeout-ms': { type: 'string', arg: 'N', section: TERMINAL, help: `how long a step may wait for its screen (default ${DEFAULT_STEP_TIMEOUT_MS})` },
  'trust-tape': {
    type: 'boolean',
    default: false,
    section: TERMINAL,
    help: 'run the command a terminal tape records even when the tape is not in this project (only for tapes you trust: it runs as you)',
  },
  bail: { type: 'boolean', default: false, section: TERMINAL, help: 'stop a tape at its first drift (default: send the input anyway, go on)' },
  realtime: { type: 'boolean', default: false, section: TERMINAL, help: 'wait the recorded interval before each step' },
  cwd: {
    type: 'string',
    arg: 'DIR',
    path: true,
    section: TERMINAL,
    help: "run the program in DIR (default: where the tape was recorded, found from the tape's folder first, then as an absolute path; else the current directory)",
  },
  home: {
    type: 'string',
    arg: 'fresh|inherit',
    section: TERMINAL,
    help: "HOME for the program: a fresh empty temporary directory per replay (default; nothing a program saves reaches the next run) or the caller's",
  },
  screenshots: {
    type: 'boolean',
    default: false,
    section: TERMINAL,
    help: 'at each marker also render the live screen (Chromium; masks painted over) and pixel-compare it with <tape without .cast>.<marker>.png beside the tape: written when missing (not on CI), rewritten with --update; a difference is drift TD1106 and leaves <golden>.actual.png and <golden>.diff.png beside it. Exit 6 when Chromium is unavailable.',
  },
  threshold: { type: 'string', arg: 'T', section: PIXELS, help: 'per-pixel colour distance, 0..1 (default 0.2)' },
  'max-diff-pixels': { type: 'string', arg: 'N', section: PIXELS, help: 'how many pixels may differ (default 0)' },
  'max-diff-pixel-ratio': { type: 'string', arg: 'R', section: PIXELS, help: 'what fraction of the pixels may differ, 0..1 (default 0)' },
  profile: { type: 'string', arg: 'NAME', section: PIXELS, help: `render profile: ${PROFILE_NAMES.join(', ')} (aliases dark, light; default reference-dark, or TAPEDECK_PROFILE)` },
} satisfies OptionSpecs;

export const replayNotes = {
  options: 'A drifted tape (not on CI, not --update) leaves <tape>.new for `tapedeck review`.\nWith GITHUB_ACTIONS=true, each drift is also a workflow annotation at its tape line.',
};
