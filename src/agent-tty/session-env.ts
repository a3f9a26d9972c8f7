/**
 * The variables a program inside a session finds its session by: seed 004's
 * three, under its own names (MYTTY_CONTROL_SOCKET, MYTTY_CTL_BIN,
 * MYTTY_SURFACE_ID, so a program written for it works unchanged) and under
 * AGENT_TTY_* names, plus the home so the CLI it runs looks in the same
 * place: no setup, no config file.
 *
 *   "$MYTTY_CTL_BIN" type "$MYTTY_SURFACE_ID" 'hello' --json
 */
export function sessionEnvironment(options: { home: string; sessionId: string; socketPath: string; binPath: string }): Record<string, string> {
  return {
    AGENT_TTY_SOCKET: options.socketPath,
    AGENT_TTY_BIN: options.binPath,
    AGENT_TTY_SESSION_ID: options.sessionId,
    AGENT_TTY_HOME: options.home,
    MYTTY_CONTROL_SOCKET: options.socketPath,
    MYTTY_CTL_BIN: options.binPath,
    MYTTY_SURFACE_ID: options.sessionId,
  };
}
