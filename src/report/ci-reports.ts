import type { TapeSummary } from './summary.js';
import { relative } from 'node:path';
import { driftLines, type Drift } from '../core/diagnostics/drift.js';
import { escapeControls } from '../core/text/terminal-safe.js';

/**
 * Machine reports for CI: JUnit XML (one test case per tape, its drifts as
 * the failure) and GitHub Actions workflow annotations (one ::error per
 * drift, at the tape line, so the drift shows in the pull request's diff).
 */
/** The per-tape summary JUnit and annotations are written from. */
export type CiTapeResult = TapeSummary;

function xml(text: string): string {
  // XML 1.0 cannot carry most C0 controls even escaped, and C1 ones (U+0080–U+009F) are CSI, OSC... to a
  // terminal showing the file: show them all instead.
  return text
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!)
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function driftText(d: Drift): string {
  return driftLines(d).join('\n');
}

export function junitXml(tapes: readonly CiTapeResult[], durationMs: number, suiteName = 'tapedeck replay'): string {
  const failures = tapes.filter((t) => t.drifts.length > 0 || t.failure).length;
  const cases = tapes.map((t) => {
    const name = xml(relative(process.cwd(), t.tape) || t.tape);
    const open = `  <testcase classname="tapedeck.${t.kind}" name="${name}" file="${name}" time="${(t.durationMs / 1000).toFixed(3)}"`;
    if (t.failure) return `${open}>\n    <failure message="${xml(t.failure.message)}" type="${xml(t.failure.type)}">${xml(t.failure.text)}</failure>\n  </testcase>`;
    if (t.drifts.length === 0) return `${open}/>`;
    const message = `${t.drifts.length} drift(s) in ${t.units} ${t.kind === 'protocol' ? 'pairs' : 'steps'}: ${t.drifts[0].title}`;
    return `${open}>\n    <failure message="${xml(message)}" type="${t.drifts[0].code}">${xml(t.drifts.map(driftText).join('\n\n'))}</failure>\n  </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(suiteName)}" tests="${tapes.length}" failures="${failures}" time="${(durationMs / 1000).toFixed(3)}">`,
    `<testsuite name="${xml(suiteName)}" tests="${tapes.length}" failures="${failures}" errors="0" skipped="0" time="${(durationMs / 1000).toFixed(3)}">`,
    ...cases,
    '</testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** GitHub's workflow-command escaping (data and properties differ), after control bytes are made visible: logs are shown in terminals too. */
function escapeData(s: string): string {
  return escapeControls(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function githubAnnotations(tapes: readonly CiTapeResult[]): string {
  const lines: string[] = [];
  for (const t of tapes) {
    for (const d of t.drifts) {
      const file = relative(process.cwd(), d.tape) || d.tape;
      const title = `${d.code} ${d.title}`;
      const body = [`pair/step ${d.pair}: ${d.request}`, ...d.details.slice(0, 20)].join('\n');
      lines.push(`::error file=${escapeProperty(file)},line=${d.line},title=${escapeProperty(title)}::${escapeData(body)}`);
    }
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}
