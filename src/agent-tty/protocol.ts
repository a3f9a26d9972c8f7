/**
 * The control socket's wire format (seed 004): one connection carries one
 * request line and one response line. The request names a command and its
 * arguments; the response is the same §1.3 envelope the CLI prints with --json.
 */
export interface HostRequest {
  command: string;
  args?: Record<string, unknown>;
}

export interface Envelope {
  ok: boolean;
  command: string;
  timestamp: string;
  result?: Record<string, unknown>;
  error?: { code: string; message: string; retryable: boolean; details: Record<string, unknown> };
}

/** Requests larger than this are refused (a paste of 64 MiB is already absurd). */
export const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

/** Host-side commands (the CLI commands that need the live session). */
export const HOST_COMMANDS = ['ping', 'inspect', 'type', 'paste', 'send-keys', 'resize', 'signal', 'wait', 'snapshot', 'destroy'] as const;

/** Marker the host logs when it ends a running session itself (record export cuts the tape there). */
export const END_MARKER_PREFIX = 'agent-tty:';
