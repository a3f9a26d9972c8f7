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
  /** With --include-source: the span's line with one line of context each side (seed 001). */
  source?: { start_line: number; lines: string[] };
}

/** Where seed 001's envelope shape, and tapedeck's differences from it, are written down. */
export const ENVELOPE_DOC = 'docs/formats.md#diagnostic-envelopes';

/** Drift codes that tell a neighbouring story (what a reader of one may be seeing instead). */
const RELATED: Record<string, string[]> = {
  TD1001: ['TD1004', 'TD1005'],
  TD1002: ['TD1003', 'TD1006'],
  TD1003: ['TD1002', 'TD1105'],
  TD1004: ['TD1005', 'TD1001'],
  TD1005: ['TD1004', 'TD1001'],
  TD1006: ['TD1002'],
  TD1101: ['TD1102', 'TD1103'],
  TD1102: ['TD1106', 'TD1103'],
  TD1103: ['TD1102', 'TD1104'],
  TD1104: ['TD1105'],
  TD1105: ['TD1003', 'TD1104'],
  TD1106: ['TD1102'],
};

/** Seed 001's see_also: related TDxxxx codes (`tapedeck explain CODE` prints each) and doc paths. */
export function seeAlso(code: string): string[] {
  const info = codeInfo(code);
  const named = info ? [...info.explanation.matchAll(/\bTD\d{4}\b/g)].map((m) => m[0]) : [];
  const related = [...new Set([...(RELATED[code] ?? []), ...named])].filter((c) => c !== code);
  return [...related, ENVELOPE_DOC];
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
  env.see_also = seeAlso(args.code);
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
