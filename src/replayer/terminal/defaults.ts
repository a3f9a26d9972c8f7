/** How long one replay step may wait for its screen; kept apart so the CLI's help needs no terminal stack. */
export const DEFAULT_STEP_TIMEOUT_MS = 5000;
