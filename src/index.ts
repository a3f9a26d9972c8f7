/**
 * tapedeck's library: everything the CLI does, returning typed results.
 */
export { ExitCode } from './core/exit-codes.js';
export { TapedeckError } from './core/errors.js';
export { type Boundary, parseBoundary, formatBoundary } from './core/boundary.js';
export { Normaliser, parseFilter, type NormaliseRules, type TextFilter } from './core/normalise.js';
export { loadConfig, type TapedeckConfig } from './core/config.js';
export { readProtocolTape, formatPair, type ProtocolTape, type TapePair } from './core/tape.js';
export { isCI, resolveUpdateMode, type UpdateMode } from './core/ci.js';
export { codeInfo, allCodes } from './core/codes.js';
export type { DiagnosticEnvelope } from './core/envelope.js';
export { recordProtocol, type RecordProtocolOptions, type RecordProtocolResult } from './recorder/protocol-tap.js';
export { replayProtocolTape, type ProtocolReplayOptions, type TapeReplayResult, type PairOutcome } from './replayer/protocol.js';
export { expandTapes, parseShard, selectShard } from './replayer/run.js';
export { replayProtocolTapes, type ReplayRunOptions } from './replayer/replay-tapes.js';
export { serveTape, type ServeOptions, type ServeResult } from './replayer/serve.js';
export { driftToEnvelope } from './replayer/envelopes.js';
export { replayTerminal, DEFAULT_STEP_TIMEOUT_MS, type TerminalReplayOptions, type TerminalTapeResult, type TerminalStepResult, type TerminalStepStatus } from './replayer/terminal.js';
export { planTerminalReplay, type TerminalPlan, type PlannedStep, type TerminalStepKind } from './replayer/terminal-plan.js';
export { replayTapes, isTerminalTape, type ReplayTapesOptions, type ReplayTapesResult, type AnyTapeResult, type ProtocolTapeResult } from './replayer/replay-tapes.js';
export { commandForCast, splitCommandLine } from './replayer/terminal-command.js';
export { describeInput } from './replayer/terminal-describe.js';
export { recordTerminal, type RecordTerminalOptions, type RecordResult } from './recorder/terminal.js';
export { recordScript, type ScriptStep, type RecordScriptOptions } from './recorder/terminal-script.js';
export { parseMaskRect, parseMaskRectFlag, type MaskRect } from './core/mask.js';
export type { Drift } from './replayer/drift.js';
export { spawnTerminal, Terminal } from './session/index.js';
export type { SpawnOptions, TerminalExit, TerminalSnapshot } from './session/index.js';
export { formatScreenGolden, parseScreenGolden, type ScreenMask, type ScreenGoldenOptions } from './render/golden-text.js';
export { checkGolden, goldenPath, type GoldenCheck, type GoldenResult } from './matchers/golden-store.js';
export * from './render/index.js';
export { encodeKey, encodeKeys, pinnedEnv, normaliseSignal, EventLog, DEFAULT_WAIT_TIMEOUT_MS, type TerminalEvent, type WaitOptions } from './session/index.js';
export * from './render/index-screenshot.js';
