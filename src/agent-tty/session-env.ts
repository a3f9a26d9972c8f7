/**
 * The variables a program inside a session finds its session by (seed 004's
 * three-variable pattern under AGENT_TTY_* names, plus the home so the CLI it
 * runs looks in the same place): no setup, no config file.
 *
 *   "$AGENT_TTY_BIN" type "$AGENT_TTY_SESSION_ID" 'hello' --json
 */
export function sessionEnvironment(options: { home: string; sessionId: string; socketPath: string; binPath: string }): Record<string, string> {
  return {
    AGENT_TTY_SOCKET: options.socketPath,
    AGENT_TTY_BIN: options.binPath,
    AGENT_TTY_SESSION_ID: options.sessionId,
    AGENT_TTY_HOME: options.home,
  };
}
