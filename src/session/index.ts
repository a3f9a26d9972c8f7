export { spawnTerminal, Terminal } from './terminal.js';
export type { SpawnOptions, TerminalExit, InputResult, KeysResult, TerminalSnapshot, ScreenWaitResult } from './terminal.js';
export type { TerminalEvent, OutputEvent, InputEvent, ResizeEvent, SignalEvent, MarkerEvent, ExitEvent, InputKind } from './events.js';
export { EventLog } from './events.js';
export { encodeKey, encodeKeys, parseChord } from './input/keys.js';
export { pinnedEnv, COLOUR_FORCING_VARS } from './pty/env.js';
export { normaliseSignal, SUPPORTED_SIGNALS } from './pty/signals.js';
export { DEFAULT_WAIT_TIMEOUT_MS, type WaitOptions } from './waits.js';
export { killAllTracked, trackedCount } from './registry.js';
