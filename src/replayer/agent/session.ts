import { TapedeckError } from '../../core/diagnostics/errors.js';
import { ExitCode } from '../../core/diagnostics/exit-codes.js';
import { OPS, type AgentOp } from './ops.js';
import { type AgentState, type Emit, RequestError } from './wire.js';

/**
 * `tapedeck agent`: seed 000's agent-mode wire format for tapedeck's own
 * operations. One JSON request per line in (`{"op":...}`), zero or more
 * response lines out, each a JSON object with a `kind` (envelope, log,
 * progress, result, patch, error), and one `{"kind":"done","exit_code":N}`
 * last per request, N the exit code the equivalent `tapedeck` command returns.
 * A session remembers, between requests, the last path and the envelopes of
 * the last replay, so `fix` can follow `replay` without sending them back.
 */
export class AgentSession {
  readonly state: AgentState = { lastEnvelopes: [] };

  constructor(private readonly options: { cwd: string; env: NodeJS.ProcessEnv }) {}

  /** Answers one request line; resolves with its exit code, and whether it was halt. */
  async handle(line: string, emit: Emit): Promise<{ exitCode: number; halt: boolean }> {
    const done = (code: number, halt = false) => {
      emit({ kind: 'done', exit_code: code });
      return { exitCode: code, halt };
    };
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch (err) {
      emit({ kind: 'error', message: `malformed JSON: ${(err as Error).message}` });
      return done(ExitCode.usage);
    }
    if (request === null || typeof request !== 'object' || Array.isArray(request)) {
      emit({ kind: 'error', message: 'malformed request: expected a JSON object with "op"' });
      return done(ExitCode.usage);
    }
    const req = request as Record<string, unknown>;
    if (typeof req.op !== 'string') {
      emit({ kind: 'error', message: req.op === undefined ? 'malformed request: missing "op"' : `malformed request: "op" must be a string, got ${JSON.stringify(req.op)}` });
      return done(ExitCode.usage);
    }
    // Seed 000: halt "emits a single {"kind":"done","exit_code":0} and stops reading".
    if (req.op === 'halt') return done(0, true);
    const op: AgentOp | undefined = Object.hasOwn(OPS, req.op) ? OPS[req.op as keyof typeof OPS] : undefined;
    if (!op) {
      emit({ kind: 'error', message: `unknown op: ${req.op}` });
      return done(ExitCode.usage);
    }
    try {
      return done(await op(req, { cwd: this.options.cwd, env: this.options.env, state: this.state, emit }));
    } catch (err) {
      if (err instanceof RequestError) {
        emit({ kind: 'error', message: err.message });
        return done(err.exitCode);
      }
      if (err instanceof TapedeckError) {
        const where = err.location ? `${err.location.file}${err.location.line ? `:${err.location.line}` : ''}: ` : '';
        emit({ kind: 'error', message: `${where}${err.message}`, code: err.code });
        return done(err.exitCode);
      }
      emit({ kind: 'error', message: `internal error: ${(err as Error)?.message ?? String(err)}` });
      return done(ExitCode.usage);
    }
  }
}
