/**
 * Text from a tape or a live program, made safe to print. A terminal obeys
 * control bytes (ESC sequences set the title, write the clipboard with OSC 52,
 * move the cursor; C1 controls U+0080–U+009F do the same in 8-bit form), and
 * GitHub Actions obeys any stderr/stdout line that starts with `::`. So every
 * control character except newline and tab is shown as a visible escape, and
 * no printed line may begin with `::` that came from data.
 */

// C0 except \t (0x09) and \n (0x0a), DEL, C1, plus the line/paragraph separators some terminals honour.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;

function visible(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code === 0x1b) return '\\e';
  if (code === 0x0d) return '\\r';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Control characters as visible escapes (`\e`, `\r`, `\x9b`); newline and tab kept. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, visible);
}

/** A line GitHub would read as a workflow command (`::error ...`) shows its first colon escaped. */
export function defuseWorkflowCommands(text: string): string {
  return text.replace(/(^|[\n\r])([ \t]*)::/g, '$1$2\\x3a:');
}

/** Both: for anything printed to a terminal or a CI log that carries data. */
export function terminalSafe(text: string): string {
  return defuseWorkflowCommands(escapeControls(text));
}

/** One line with every control shown (newline and tab too): for names and labels. */
export function oneLine(text: string): string {
  return escapeControls(text).replace(/\n/g, '\\n').replace(/\t/g, '\\t');
}

/**
 * JSON.stringify, with the characters it leaves raw but a terminal acts on
 * escaped: DEL and the C1 controls U+0080–U+009F (an xterm-compatible terminal
 * reads U+009D as OSC, U+009B as CSI: clipboard writes, title changes, typed-back
 * reports), and U+2028/U+2029. The result parses to the same value; CLI JSON
 * (--json envelopes, the run summary) goes through this, as it is often shown
 * in a terminal or a CI log.
 */
export function jsonForTerminal(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
