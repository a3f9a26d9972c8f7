/** A parsed VHS tape: its commands in order (Source expanded), each with where it came from. */
export interface VhsLocation {
  /** The tape file the command was read from (a sourced tape names its own file). */
  file: string;
  line: number;
  column: number;
  /** The whole source line, for messages. */
  text: string;
}

export type VhsKey =
  | 'Backspace' | 'Delete' | 'Insert' | 'Enter' | 'Space' | 'Tab' | 'Escape' | 'Up' | 'Down' | 'Left' | 'Right'
  | 'PageUp' | 'PageDown' | 'Home' | 'End';

export type VhsSettingName =
  | 'Shell' | 'FontFamily' | 'FontSize' | 'LetterSpacing' | 'LineHeight' | 'Framerate' | 'TypingSpeed' | 'Theme'
  | 'PlaybackSpeed' | 'Height' | 'Width' | 'Padding' | 'LoopOffset' | 'MarginFill' | 'Margin' | 'WindowBar'
  | 'WindowBarSize' | 'BorderRadius' | 'CursorBlink' | 'WaitTimeout' | 'WaitPattern';

export type VhsOutputKind = 'gif' | 'webm' | 'mp4' | 'txt' | 'ascii' | 'cast' | 'frames';

export type VhsCommand = VhsLocated &
  (
    | { kind: 'Output'; path: string; format: VhsOutputKind }
    | { kind: 'Require'; program: string }
    | { kind: 'Set'; setting: VhsSettingName; raw: string; value: string | number | boolean | Record<string, unknown> }
    | { kind: 'Sleep'; ms: number }
    | { kind: 'Type'; text: string; speedMs?: number }
    | { kind: 'Key'; key: VhsKey; speedMs?: number; count: number }
    | { kind: 'Scroll'; direction: -1 | 1; speedMs?: number; count: number }
    | { kind: 'Ctrl'; modifiers: ('Alt' | 'Shift')[]; key: string }
    | { kind: 'Alt'; key: string }
    | { kind: 'Shift'; key: string }
    | { kind: 'Hide' }
    | { kind: 'Show' }
    | { kind: 'Screenshot'; path: string }
    | { kind: 'Copy'; text: string }
    | { kind: 'Paste' }
    | { kind: 'Env'; name: string; value: string }
    | { kind: 'Wait'; scope: 'Line' | 'Screen'; timeoutMs?: number; pattern?: string }
  );

export interface VhsLocated {
  at: VhsLocation;
}

export interface VhsTape {
  /** The tape's path as given. */
  file: string;
  commands: VhsCommand[];
}

/** A problem found while reading a tape: file:line:column, what was found and what was expected. */
export interface VhsDiagnostic {
  file: string;
  line: number;
  column: number;
  /** Characters to underline from `column` (at least 1). */
  length: number;
  message: string;
  /** The source line. */
  text: string;
}
