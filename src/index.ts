/**
 * tapedeck's library: what the README documents, grouped as the CLI is. Everything
 * the CLI does returns typed results. Internals stay in their modules; nothing here
 * is re-exported wholesale, so this file is the whole public surface.
 */

/**
 * An async export loaded on its first call. The terminal, render and report
 * stacks behind these are most of the library's modules: a program that only
 * replays protocol tapes does not load them (bench/protocol-replay.mjs imports
 * this file). Each wraps an async function, so calling it behaves the same.
 */
function lazy<M, K extends keyof M>(load: () => Promise<M>, name: K): M[K] {
  return (async (...args: unknown[]) => ((await load())[name] as (...a: unknown[]) => unknown)(...args)) as M[K];
}

// Errors, exit codes and configuration
export { TapedeckError } from './core/diagnostics/errors.js';
export { ExitCode, type ExitCodeValue } from './core/diagnostics/exit-codes.js';
export { loadConfig, type TapedeckConfig } from './core/config/config.js';
export type { TapedeckUserConfig, MatcherDefaults } from './core/config/define.js';
export type { Drift } from './core/diagnostics/drift.js';
export type { DiagnosticEnvelope } from './core/diagnostics/envelope.js';
export type { UpdateMode } from './core/config/ci.js';
export type { Boundary } from './core/framing/boundary.js';
export type { MaskRect } from './core/text/mask.js';

// Tapes: protocol tapes (seed 000 pairs) and asciicast casts
export { readProtocolTape, type ProtocolTape, type TapePair } from './tape/protocol/tape.js';
export const readCast = lazy(() => import('./tape/asciicast/read.js'), 'readCast');
export type { OpenedCast } from './tape/asciicast/read.js';
export type { CastHeader, CastEvent, CastVersion, CastFormat } from './tape/asciicast/events.js';
export const convertCast = lazy(() => import('./tape/asciicast/convert.js'), 'convertCast');

// Record
export const recordProtocol = lazy(() => import('./recorder/stdio/tap.js'), 'recordProtocol');
export type { RecordProtocolOptions, RecordProtocolResult } from './recorder/stdio/tap.js';
export const recordTerminal = lazy(() => import('./recorder/terminal/record.js'), 'recordTerminal');
export type { RecordTerminalOptions, RecordResult } from './recorder/terminal/record.js';
export const recordScript = lazy(() => import('./recorder/terminal/script.js'), 'recordScript');
export type { ScriptStep, RecordScriptOptions } from './recorder/terminal/script.js';
export const recordTransport = lazy(() => import('./recorder/net/record-transport.js'), 'recordTransport');
export type { RecordTransportOptions } from './recorder/net/record-transport.js';

// Replay and serve
export { Normaliser, type NormaliseRules, type TextFilter } from './core/text/normalise.js';
// Loaded on its first call: replaying one tape (replayProtocolTape) does not load the many-tape runner.
export const replayTapes = lazy(() => import('./replayer/replay-tapes.js'), 'replayTapes');
export type { ReplayTapesOptions, ReplayTapesResult, AnyTapeResult, ProtocolTapeResult } from './replayer/replay-tapes.js';
export { replayProtocolTape, type ProtocolReplayOptions, type TapeReplayResult, type PairOutcome } from './replayer/protocol/replay.js';
export { projectTrust, type TapeTrust } from './replayer/tape-trust.js';
export const replayTerminal = lazy(() => import('./replayer/terminal/replay.js'), 'replayTerminal');
export type { TerminalReplayOptions, TerminalTapeResult, TerminalStepResult, TerminalStepStatus } from './replayer/terminal/replay.js';
export const serveTape = lazy(() => import('./replayer/serve/serve.js'), 'serveTape');
export type { ServeOptions, ServeResult } from './replayer/serve/serve.js';
export const serveTransport = lazy(() => import('./replayer/serve/transport.js'), 'serveTransport');
export type { TransportServeOptions } from './replayer/serve/transport.js';
export type { TransportTarget } from './replayer/transport/replay.js';
export { driftToEnvelope } from './replayer/protocol/envelopes.js';

// Live terminal sessions
export { spawnTerminal, Terminal } from './session/terminal.js';
export type { SpawnOptions, TerminalExit, TerminalSnapshot } from './session/terminal.js';
export type { KeyName, NamedKey, Modifier } from './session/input/key-names.js';
export type { TerminalEvent } from './session/events.js';
export type { WaitOptions } from './session/waits.js';
export const playCast = lazy(() => import('./session/cast/play.js'), 'playCast');
export type { PlayedCast } from './session/cast/play.js';
export type { CastPosition } from './session/cast/steps.js';
export type { ScreenSnapshot } from './session/screen/screen.js';

// Snapshots, screenshots and comparison
export { formatScreenGolden, parseScreenGolden, type ScreenMask, type ScreenGoldenOptions } from './render/golden-text.js';
export const screenshotTerminal = lazy(() => import('./render/screenshot/terminal.js'), 'screenshotTerminal');
export const screenshotCast = lazy(() => import('./render/screenshot/cast.js'), 'screenshotCast');
export type { Screenshot, ScreenshotOptions } from './render/screenshot/screenshot.js';
export const closeRenderer = lazy(() => import('./render/browser/renderer.js'), 'closeRenderer');
// The raster renderer (a snapshot with cells to a stamped PNG) is the `tapedeck/render` entry: its functions are
// synchronous, and this entry stays under 40 values (test/house/architecture.test.ts). Its types, here too:
export type { RenderedPng, RenderOptions } from './render/raster/render.js';
export type { RasterOptions, RasterImage, PngStamp } from './render/raster/index.js';
export { comparePngs, type PixelCompareOptions, type PixelComparison } from './render/pixel/diff.js';

// Reports and export: the human summary, the --json summary line, JUnit, annotations, HTML
export { formatReplayText } from './report/text.js';
export { runSummary, type TapeSummary } from './report/summary.js';
export const reportFromRun = lazy(() => import('./report/from-run.js'), 'reportFromRun');
export { renderHtmlReport, type ReportRun, type ReportTape, type ReportScreenshot } from './report/html.js';
export { junitXml, githubAnnotations, type CiTapeResult } from './report/ci-reports.js';
export const castToHtml = lazy(() => import('./report/export-html.js'), 'castToHtml');
export const castToWebm = lazy(() => import('./render/video/export-video.js'), 'castToWebm');
export type { VideoOptions } from './render/video/export-video.js';

// Reviewing goldens and applying fixes
export { findPending, acceptPending, rejectPending, type PendingGolden } from './core/golden/pending.js';
export { applyEnvelopes, type FixOutcome } from './core/diagnostics/apply-fixes.js';
