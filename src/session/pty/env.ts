/**
 * The pinned environment a terminal program runs in (docs/ARCHITECTURE.md
 * "Determinism rules"): the same TERM, locale and time zone everywhere (the size comes from the PTY),
 * and none of the caller's colour-forcing switches.
 */

/** Variables that make programs force or drop colour regardless of the terminal. */
export const COLOUR_FORCING_VARS = [
  'FORCE_COLOR', 'NO_COLOR', 'CLICOLOR', 'CLICOLOR_FORCE', 'COLORTERM', 'TERM_PROGRAM', 'TERM_PROGRAM_VERSION',
  'NODE_DISABLE_COLORS', 'PY_COLORS', 'ANSI_COLORS_DISABLED', 'GREP_COLORS', 'LS_COLORS',
];

/** Variables from the parent's own terminal that would mislead the child about where it runs. */
const PARENT_TERMINAL_VARS = ['TMUX', 'TMUX_PANE', 'STY', 'WINDOW', 'WINDOWID', 'TERMCAP', 'VTE_VERSION', 'KITTY_WINDOW_ID', 'LC_ALL'];

export interface EnvOptions {
  /** Accepted for callers that pass the size; not exported to the program (the PTY carries it). */
  rows?: number;
  cols?: number;
  term?: string;
  /** Merged last: wins over the pinned values; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** Start from this instead of process.env. */
  base?: NodeJS.ProcessEnv;
}

export function pinnedEnv(options: EnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.base ?? process.env)) if (v !== undefined) env[k] = v;
  for (const k of [...COLOUR_FORCING_VARS, ...PARENT_TERMINAL_VARS]) delete env[k];
  env.TERM = options.term ?? 'xterm-256color';
  env.LANG = 'C.UTF-8';
  env.TZ = 'UTC';
  // No LINES/COLUMNS: ncurses prefers them to the terminal's size, so a program
  // started with them never follows a resize (SIGWINCH). The PTY has the size.
  delete env.COLUMNS;
  delete env.LINES;
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}
