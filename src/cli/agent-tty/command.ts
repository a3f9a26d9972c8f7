import type { OptionSpec, ParsedArgs } from './argv.js';
import type { AgentContext } from './config.js';

/** One agent-tty command: its options, help, and a run that returns the §1.3 result. */
export interface CommandOutcome {
  result: Record<string, unknown>;
  /** Human output (printed without --json). */
  human: string;
  /** Non-zero for outcomes that are results but not success (a wait that timed out: 5). */
  exitCode?: number;
}

export interface CommandDef {
  name: string;
  summary: string;
  usage: string;
  options: OptionSpec;
  restIsCommand?: boolean;
  /** How many positionals the command takes (default: unlimited). */
  maxPositionals?: number;
  run(ctx: AgentContext, args: ParsedArgs): Promise<CommandOutcome>;
}
