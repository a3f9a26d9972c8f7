import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AgentError } from '../../agent-tty/errors.js';
import { defaultHome } from '../../agent-tty/paths.js';
import type { CliIO } from '../io.js';
import { LOG_LEVELS, type AgentContext, type LogLevel } from '../../agent-tty/context.js';

export { LOG_LEVELS, type AgentContext, type LogLevel };

/**
 * Seed 002 §3's precedence: command-line flags, then environment variables
 * (AGENT_TTY_*, with TAPEDECK_* as the fallback where tapedeck has the same
 * setting), then the config file (<home>/config.json, or AGENT_TTY_CONFIG),
 * then built-in defaults.
 */
export interface GlobalFlags {
  json?: boolean;
  home?: string;
  logLevel?: string;
  timeoutMs?: string;
  profile?: string;
  noColor?: boolean;
}

interface FileConfig {
  logLevel?: string;
  profile?: string;
  timeoutMs?: number;
}

function env(name: string, environment: NodeJS.ProcessEnv): string | undefined {
  const v = environment[`AGENT_TTY_${name}`] ?? environment[`TAPEDECK_${name}`];
  return v === undefined || v === '' ? undefined : v;
}

function readConfigFile(path: string, explicit: boolean): FileConfig {
  if (!existsSync(path)) {
    if (explicit) throw new AgentError('STORAGE_READ_ERROR', `config file not found: ${path}`, { path });
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new AgentError('INVALID_INPUT', `${path}: invalid JSON: ${(err as Error).message}`, { path });
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new AgentError('INVALID_INPUT', `${path}: the config must be a JSON object`, { path });
  return parsed as FileConfig;
}

export function parseTimeout(value: string | number, source: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 2_147_483_647) {
    throw new AgentError('INVALID_DURATION', `${source} expects a whole number of milliseconds from 1 to 2147483647, got ${JSON.stringify(value)}`, { value });
  }
  return n;
}

export function resolveContext(flags: GlobalFlags, io: CliIO): AgentContext {
  const environment = io.env;
  const home = resolve(io.cwd, flags.home ?? env('HOME', environment) ?? defaultHome());
  const configPath = environment.AGENT_TTY_CONFIG;
  const file = readConfigFile(configPath ? resolve(io.cwd, configPath) : join(home, 'config.json'), Boolean(configPath));
  const logLevel = flags.logLevel ?? env('LOG_LEVEL', environment) ?? file.logLevel ?? 'warn';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new AgentError('INVALID_INPUT', `--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`, { logLevel });
  }
  const timeout = flags.timeoutMs ?? env('TIMEOUT_MS', environment) ?? file.timeoutMs;
  return {
    json: Boolean(flags.json),
    home,
    logLevel: logLevel as LogLevel,
    timeoutMs: timeout === undefined ? undefined : parseTimeout(timeout, flags.timeoutMs !== undefined ? '--timeout-ms' : 'the timeout setting'),
    profile: flags.profile ?? env('PROFILE', environment) ?? file.profile,
    color: !flags.noColor && environment.NO_COLOR === undefined,
    keepTemp: env('KEEP_TEMP', environment) === '1',
    browserPath: environment.AGENT_TTY_BROWSER_PATH ?? environment.TAPEDECK_CHROMIUM,
    io,
  };
}
