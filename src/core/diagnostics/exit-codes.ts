/** Process exit codes shared by every command (docs/ARCHITECTURE.md "Exit codes"). */
export const ExitCode = {
  ok: 0,
  drift: 1,
  usage: 2,
  notFound: 3,
  notRunning: 4,
  waitTimeout: 5,
  rendererUnavailable: 6,
  exportFailure: 7,
  environment: 8,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];
