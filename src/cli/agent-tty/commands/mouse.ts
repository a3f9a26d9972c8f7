import { intOption, list, sessionArg, str, type ParsedArgs } from '../argv.js';
import type { CommandDef } from '../command.js';
import type { AgentContext } from '../config.js';
import { AgentError, AgentExit } from '../../../agent-tty/errors.js';
import { callHost } from '../../../agent-tty/client/session-access.js';
import { MOUSE_BUTTONS, MOUSE_MODIFIERS, WHEEL_DIRECTIONS } from '../../../session/input/mouse.js';

const ACTIONS = ['click', 'drag', 'scroll', 'move'] as const;

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], what: string): T | undefined {
  if (value === undefined) return undefined;
  const v = value.toLowerCase() as T;
  if (!allowed.includes(v)) throw new AgentError('INVALID_INPUT', `mouse: ${what} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`, { value });
  return v;
}

/** The request a mouse command sends: checked here too, so a typo is a usage error even when the session is gone. */
function request(args: ParsedArgs): Record<string, unknown> {
  const action = oneOf(args.positionals[1], ACTIONS, 'the action (after the session id)');
  if (!action) throw new AgentError('INVALID_INPUT', `mouse: give an action: ${ACTIONS.join(', ')}`, {});
  if (args.positionals.length > 2) throw new AgentError('INVALID_INPUT', `mouse: unexpected argument ${JSON.stringify(args.positionals[2])}`, {});
  const row = intOption(args, 'row', 'INVALID_INPUT', 0, 9_999);
  const col = intOption(args, 'col', 'INVALID_INPUT', 0, 9_999);
  if (row === undefined || col === undefined) throw new AgentError('INVALID_INPUT', 'mouse: give --row N and --col N (0-based, as snapshots number cells)', {});
  const req: Record<string, unknown> = { action, row, col };
  const modifiers = list(args, 'modifier').flatMap((m) => m.split(/[+,]/)).filter(Boolean).map((m) => oneOf(m, MOUSE_MODIFIERS, '--modifier')!);
  if (modifiers.length > 0) req.modifiers = modifiers;
  const button = oneOf(str(args, 'button'), MOUSE_BUTTONS, '--button');
  if (button) req.button = button;
  if (action === 'drag') {
    req.toRow = intOption(args, 'to-row', 'INVALID_INPUT', 0, 9_999);
    req.toCol = intOption(args, 'to-col', 'INVALID_INPUT', 0, 9_999);
    if (req.toRow === undefined || req.toCol === undefined) throw new AgentError('INVALID_INPUT', 'mouse drag: give --to-row N and --to-col N', {});
    const steps = intOption(args, 'steps', 'INVALID_INPUT', 1, 10_000);
    if (steps !== undefined) req.steps = steps;
  }
  if (action === 'scroll') {
    req.direction = oneOf(str(args, 'direction'), WHEEL_DIRECTIONS, '--direction') ?? 'down';
    const count = intOption(args, 'count', 'INVALID_INPUT', 1, 1_000);
    if (count !== undefined) req.count = count;
  }
  for (const [name, only] of [['to-row', 'drag'], ['to-col', 'drag'], ['steps', 'drag'], ['direction', 'scroll'], ['count', 'scroll']] as const) {
    if (args.values[name] !== undefined && action !== only) throw new AgentError('INVALID_INPUT', `mouse ${action}: --${name} is for mouse ${only}`, { option: `--${name}` });
  }
  if (button && (action === 'scroll' || action === 'move')) throw new AgentError('INVALID_INPUT', `mouse ${action}: --button is for click and drag`, { option: '--button' });
  return req;
}

export const mouse: CommandDef = {
  name: 'mouse',
  maxPositionals: 2,
  summary: 'click, drag, scroll or move the mouse, as xterm reports it to the program',
  usage:
    'agent-tty mouse SESSION_ID click|drag|scroll|move --row N --col N [--button left|middle|right] [--modifier shift|alt|ctrl]...\n' +
    '       drag: --to-row N --to-col N [--steps N]; scroll: [--direction up|down|left|right] [--count N]\n' +
    '       Rows and columns are 0-based. Nothing is sent while the program has not enabled mouse reporting (exit 4, sent: false).',
  options: { row: 'string', col: 'string', 'to-row': 'string', 'to-col': 'string', button: 'string', modifier: 'multi', direction: 'string', count: 'string', steps: 'string' },
  async run(ctx: AgentContext, args: ParsedArgs) {
    const id = sessionArg(args, 'mouse');
    const req = request(args);
    const result = await callHost(ctx, id, 'mouse', req);
    if (!result.sent) {
      return { result, human: `Not sent: the program has not enabled mouse reporting for a ${req.action} (tracking ${result.tracking})`, exitCode: AgentExit.notRunning };
    }
    return { result, human: `Mouse ${req.action} sent (${result.bytesWritten} bytes, ${result.tracking} tracking, ${result.encoding} encoding)` };
  },
};
