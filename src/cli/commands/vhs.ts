import { defineCommand, type OptionSpecs } from '../command.js';

export const vhsOptions = {
  update: { type: 'boolean', short: 'u', default: false, help: 'rewrite outputs that differ (never on CI without it)' },
  json: { type: 'boolean', default: false, help: 'one seed-001 drift envelope per drift on stdout, and a {"kind":"summary",...} line on stderr' },
  realtime: { type: 'boolean', default: false, help: 'honour every Sleep, typing delay and Wait timeout in wall time, as VHS does' },
  reporter: { type: 'string', arg: 'junit', help: 'write JUnit XML for CI (one test case per tape) to --out FILE' },
  out: { type: 'string', arg: 'FILE', path: true, help: 'where --reporter junit writes' },
  report: { type: 'string', arg: 'FILE', path: true, help: 'write an HTML review report: drifted frames side by side, pictures of a drifted GIF/video/Screenshot, a player of the run' },
  'trust-tape': { type: 'boolean', default: false, help: 'run tapes outside this folder too (a tape runs commands as you)' },
} satisfies OptionSpecs;

// The definition and help only: the run loads from vhs-run.ts once the options are parsed.
export const command = defineCommand({
  name: 'vhs',
  summary: 'run charmbracelet/vhs .tape scripts and check their outputs (.txt/.ascii/.cast/.gif/.webm/.mp4/frames) as goldens',
  usage: ['FILE.tape... [-u] [--json] [--realtime] [--reporter junit --out FILE] [--report FILE] [--trust-tape]'],
  description: `Runs each VHS tape (Type, Enter, Sleep, Wait, Set, Output ...) on a PTY with the shell,
prompt and terminal size VHS would give it, and checks its outputs: a .txt/.ascii output
frame by frame in VHS's own format, a .cast (tapedeck's asciicast) by its screens, a .gif,
.webm, .mp4 or frames/ folder (drawn without a browser) by its pictures as it plays. A missing
output is written (never on CI, where it fails); one that differs is drift: exit 1, a .new
beside it for tapedeck review, or rewritten with -u. Sleeps and typing shape the timeline but
the run moves on as soon as waiting longer cannot change the screen (--realtime waits).
A tape with errors is reported as a compiler would (file:line:column) and nothing runs.
Exit 0: every output matches; 1: drift; 2: a bad tape, a failed Require/Wait/Output, no shell.`,
  options: vhsOptions,
  positionals: { min: 1, max: Infinity, message: 'expected at least one FILE.tape' },
  pathPositionals: true,
  run: async (context): Promise<number> => (await import('./vhs-run.js')).vhs(context),
});
