import { codeInfo } from './codes.js';

/** Seed 001's diagnostic envelope, schema 1.0, as tapedeck emits it for drift. */
export interface DiagnosticSpan {
  file: string;
  line: number;
  col: number;
  len: number;
  byte_start: number;
  byte_end: number;
}

export interface FixAlternative {
  label: string;
  diff: string;
  rationale: string;
  confidence: number;
}

export interface DiagnosticEnvelope {
  schema_version: '1.0';
  code: string;
  severity: 'error' | 'warning' | 'note' | 'help';
  span: DiagnosticSpan;
  title: string;
  prose: string;
  fix?: { kind: string; confidence: number; alternatives: FixAlternative[] };
  see_also?: string[];
}

export function makeEnvelope(args: {
  code: string;
  span: DiagnosticSpan;
  title: string;
  detail: string;
  fix?: { kind: string; alternatives: FixAlternative[] };
  severity?: DiagnosticEnvelope['severity'];
}): DiagnosticEnvelope {
  const info = codeInfo(args.code);
  const env: DiagnosticEnvelope = {
    schema_version: '1.0',
    code: args.code,
    severity: args.severity ?? 'error',
    span: args.span,
    title: args.title,
    // Prose merges the per-site detail with the catalogue text, as seed 001 asks.
    prose: info ? `${args.detail}\n\n${info.explanation}` : args.detail,
  };
  if (args.fix && args.fix.alternatives.length > 0) {
    env.fix = {
      kind: args.fix.kind,
      confidence: Math.max(...args.fix.alternatives.map((a) => a.confidence)),
      alternatives: args.fix.alternatives,
    };
  }
  env.see_also = [`tapedeck explain ${args.code}`];
  return env;
}

/** Seed 002 §1.3's result envelope for `--json` command output. */
export function resultEnvelope(command: string, result: unknown): Record<string, unknown> {
  return { ok: true, command, timestamp: new Date().toISOString(), result };
}

export function errorEnvelope(
  command: string,
  error: { code: string; message: string; retryable?: boolean; details?: Record<string, unknown> },
): Record<string, unknown> {
  return {
    ok: false,
    command,
    timestamp: new Date().toISOString(),
    error: { code: error.code, message: error.message, retryable: error.retryable ?? false, details: error.details ?? {} },
  };
}
