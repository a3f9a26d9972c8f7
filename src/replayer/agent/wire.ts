import type { DiagnosticEnvelope } from '../../core/diagnostics/envelope.js';
import { ExitCode } from '../../core/diagnostics/exit-codes.js';

/** The shapes `tapedeck agent` speaks (seed 000's wire format), shared by the session and its ops. */
export type AgentMessage = Record<string, unknown> & { kind: string };
export type Emit = (message: AgentMessage) => void;

export interface AgentState {
  lastPath?: string;
  lastEnvelopes: DiagnosticEnvelope[];
}

export interface AgentContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  state: AgentState;
  emit: Emit;
}

export const AGENT_PROTOCOL = '1.0';

/** An error the client made in its request: `kind:"error"`, then done with this exit code. */
export class RequestError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.usage,
  ) {
    super(message);
  }
}

