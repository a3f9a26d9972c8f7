/**
 * tapedeck's library: what the README documents, grouped as the CLI is. Everything
 * the CLI does returns typed results. Internals stay in their modules; nothing here
 * is re-exported wholesale, so this file is the whole public surface.
 */

// Errors, exit codes and configuration
export { TapedeckError } from './core/errors.js';
export { ExitCode, type ExitCodeValue } from './core/exit-codes.js';
export { loadConfig, type TapedeckConfig } from './core/config.js';
export type { Drift } from './core/drift.js';
export type { DiagnosticEnvelope } from './core/envelope.js';
export type { UpdateMode } from './core/ci.js';
export type { Boundary } from './core/boundary.js';
export type { MaskRect } from './core/mask.js';

// Tapes: protocol tapes (seed 000 pairs) and asciicast casts
export { readProtocolTape, type ProtocolTape, type TapePair } from './tape/protocol-tape.js';
export { readCast, type OpenedCast } from './tape/asciicast-read.js';
export type { CastHeader, CastEvent, CastVersion, CastFormat } from './tape/asciicast.js';
export { convertCast } from './tape/asciicast-convert.js';

// Record
export { recordProtocol, type RecordProtocolOptions, type RecordProtocolResult } from './recorder/protocol-tap.js';
export { recordTerminal, type RecordTerminalOptions, type RecordResult } from './recorder/terminal.js';
export { recordScript, type ScriptStep, type RecordScriptOptions } from './recorder/terminal-script.js';
export { recordTransport, type RecordTransportOptions } from './recorder/record-transport.js';

// Replay and serve
export { Normaliser, type NormaliseRules, type TextFilter } from './core/normalise.js';
export { replayTapes, type ReplayTapesOptions, type ReplayTapesResult, type AnyTapeResult, type ProtocolTapeResult } from './replayer/replay-tapes.js';
export { replayProtocolTape, type ProtocolReplayOptions, type TapeReplayResult, type PairOutcome } from './replayer/protocol.js';
export { projectTrust, type TapeTrust } from './replayer/tape-trust.js';
export { replayTerminal, type TerminalReplayOptions, type TerminalTapeResult, type TerminalStepResult, type TerminalStepStatus } from './replayer/terminal.js';
export { serveTape, type ServeOptions, type ServeResult } from './replayer/serve.js';
export { serveTransport, type TransportServeOptions } from './replayer/serve-transport.js';
export type { TransportTarget } from './replayer/transport-replay.js';
export { driftToEnvelope } from './replayer/envelopes.js';

// Live terminal sessions
export { spawnTerminal, Terminal } from './session/terminal.js';
export type { SpawnOptions, TerminalExit, TerminalSnapshot } from './session/terminal.js';
export type { KeyName, NamedKey, Modifier } from './session/key-names.js';
export type { TerminalEvent } from './session/events.js';
export type { WaitOptions } from './session/waits.js';
export { playCast, type PlayedCast } from './session/cast-play.js';
export type { CastPosition } from './session/cast-steps.js';
export type { ScreenSnapshot } from './session/screen.js';

// Snapshots, screenshots and comparison
export { formatScreenGolden, parseScreenGolden, type ScreenMask, type ScreenGoldenOptions } from './render/golden-text.js';
export { screenshotTerminal } from './render/screenshot-terminal.js';
export { screenshotCast } from './render/screenshot-cast.js';
export type { Screenshot, ScreenshotOptions } from './render/screenshot.js';
export { closeRenderer } from './render/renderer.js';
export { comparePngs, type PixelCompareOptions, type PixelComparison } from './render/pixel-diff.js';

// Reports and export: the human summary, the --json summary line, JUnit, annotations, HTML
export { formatReplayText } from './report/text.js';
export { runSummary, type TapeSummary } from './report/summary.js';
export { reportFromRun } from './report/from-run.js';
export { renderHtmlReport, type ReportRun, type ReportTape, type ReportScreenshot } from './report/html.js';
export { junitXml, githubAnnotations, type CiTapeResult } from './report/ci-reports.js';
export { castToHtml } from './report/export-html.js';
export { castToWebm, type VideoOptions } from './render/export-video.js';

// Reviewing goldens and applying fixes
export { findPending, acceptPending, rejectPending, type PendingGolden } from './core/pending.js';
export { applyEnvelopes, type FixOutcome } from './core/apply-fixes.js';
