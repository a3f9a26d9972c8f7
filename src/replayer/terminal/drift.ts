import type { Drift, DriftCode } from '../../core/diagnostics/drift.js';
import type { PlannedStep, TerminalPlan } from './plan.js';
import { screenDiff } from './screen.js';

/**
 * Terminal drifts in the shape protocol drifts have, so reports, envelopes
 * and JUnit treat both alike: `pair` is the 1-based step, `request` the step
 * as a person reads it, the span the cast line of the event. There is no
 * one-line fix to offer (accepting means re-recording the output), so
 * `acceptLine` stays unset and envelopes carry no fix alternative.
 */
export function terminalDrift(plan: TerminalPlan, step: PlannedStep, code: DriftCode, title: string, details: string[], expected: string, actual?: string): Drift {
  return {
    code,
    tape: plan.path,
    line: step.at.line,
    byteStart: step.at.byteStart,
    byteEnd: step.at.byteEnd,
    pair: step.step,
    request: step.description,
    recordedLine: step.at.text,
    title,
    details,
    expected,
    actual,
  };
}

/** A screen drift: the diff of the recorded and the live screen follows the given lines. */
export function screenDrift(plan: TerminalPlan, step: PlannedStep, code: DriftCode, title: string, actual: string, lead: string[] = []): Drift {
  return terminalDrift(plan, step, code, title, [...lead, ...screenDiff(step.expected, actual)], step.expected, actual);
}
