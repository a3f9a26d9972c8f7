import { readFileSync } from 'node:fs';
import { flag, intOption, sessionArg, str, type ParsedArgs } from '../argv.js';
import type { CommandDef } from '../command.js';
import type { AgentContext } from '../config.js';
import { AgentError } from '../../../agent-tty/errors.js';
import { callHost } from '../../../agent-tty/client/session-access.js';
import { normaliseSignal } from '../../../session/pty/signals.js';
import { encodeKeys } from '../../../session/input/keys.js';

/** Exactly one of [text] / --file (§8.2, §9.1). */
function payload(args: ParsedArgs, command: string): string {
  const file = str(args, 'file');
  const text = args.positionals[1];
  if (args.positionals.length > 2) throw new AgentError('INVALID_INPUT', `${command}: give the text as one argument (quote it)`, {});
  if ((file === undefined) === (text === undefined)) throw new AgentError('INVALID_INPUT', `${command}: give exactly one of [text] or --file PATH`, {});
  if (text !== undefined) return text;
  try {
    return readFileSync(file!, 'utf8');
  } catch (err) {
    throw new AgentError('STORAGE_READ_ERROR', `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { path: file });
  }
}

export const type: CommandDef = {
  name: 'type',
  maxPositionals: 2,
  summary: 'write text into the PTY as raw UTF-8 (not bracketed)',
  usage: "agent-tty type SESSION_ID 'text' | --file PATH [--append-newline]",
  options: { file: 'string', 'append-newline': 'boolean' },
  async run(ctx: AgentContext, args: ParsedArgs) {
    const id = sessionArg(args, 'type');
    const text = payload(args, 'type') + (flag(args, 'append-newline') ? '\n' : '');
    const result = await callHost(ctx, id, 'type', { text });
    return { result, human: `Typed ${result.bytesWritten} bytes` };
  },
};

export const paste: CommandDef = {
  name: 'paste',
  maxPositionals: 2,
  summary: 'write text as a bracketed paste',
  usage: "agent-tty paste SESSION_ID 'text' | --file PATH",
  options: { file: 'string' },
  async run(ctx: AgentContext, args: ParsedArgs) {
    const id = sessionArg(args, 'paste');
    const result = await callHost(ctx, id, 'paste', { text: payload(args, 'paste') });
    return { result, human: `Pasted ${result.bytesWritten} bytes` };
  },
};

export const sendKeys: CommandDef = {
  name: 'send-keys',
  summary: 'send named keys and chords (Enter, ctrl+c, alt+shift+f10, g g)',
  usage: 'agent-tty send-keys SESSION_ID KEY...',
  options: {},
  async run(ctx: AgentContext, args: ParsedArgs) {
    const id = sessionArg(args, 'send-keys');
    const keys = args.positionals.slice(1);
    if (keys.length === 0) throw new AgentError('INVALID_KEYS', 'send-keys: give at least one key (e.g. Enter, ctrl+c, g)', {});
    // Validate here too, so a bad chord is a usage error even when the session is gone.
    encodeKeys(keys, { applicationCursorKeys: false, applicationKeypad: false, bracketedPaste: false } as never);
    const result = await callHost(ctx, id, 'send-keys', { keys });
    return { result, human: `Sent ${keys.join(' ')} (${result.bytesWritten} bytes)` };
  },
};

export const resize: CommandDef = {
  name: 'resize',
  maxPositionals: 1,
  summary: 'resize the terminal (logged; the program gets SIGWINCH)',
  usage: 'agent-tty resize SESSION_ID --rows N --cols N',
  options: { rows: 'string', cols: 'string' },
  async run(ctx: AgentContext, args: ParsedArgs) {
    const id = sessionArg(args, 'resize');
    const rows = intOption(args, 'rows', 'INVALID_DIMENSIONS', 1, 10_000);
    const cols = intOption(args, 'cols', 'INVALID_DIMENSIONS', 1, 10_000);
    if (rows === undefined || cols === undefined) throw new AgentError('INVALID_DIMENSIONS', 'resize: give both --rows N and --cols N', {});
    const result = await callHost(ctx, id, 'resize', { rows, cols });
    return { result, human: `Resize applied: ${result.rows}x${result.cols}` };
  },
};

export const signal: CommandDef = {
  name: 'signal',
  maxPositionals: 2,
  summary: 'send a signal (INT, TERM, HUP, ...) to the PTY child',
  usage: 'agent-tty signal SESSION_ID SIGNAL',
  options: {},
  async run(ctx: AgentContext, args: ParsedArgs) {
    const id = sessionArg(args, 'signal');
    const name = args.positionals[1];
    if (!name) throw new AgentError('INVALID_SIGNAL', 'signal: give a signal name, e.g. INT or TERM', {});
    normaliseSignal(name);
    const result = await callHost(ctx, id, 'signal', { signal: name });
    return { result, human: `Sent ${result.signal}` };
  },
};
