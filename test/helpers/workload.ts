import { join } from 'node:path';
import { ROOT } from './cli.js';

/**
 * server-everything's workload (sampling, elicitation, roots, progress and a
 * cancel) as test/fixtures/protocol/workload-client.mjs drives it with the SDK
 * client, over stdio, Streamable HTTP (`--url`) or legacy SSE (`--sse`).
 */
export const WORKLOAD = ['node', join(ROOT, 'test/fixtures/protocol/workload-client.mjs')];

/** server-everything started on a transport, from its current or its older (aliased) package. */
export const everything = (pkg: string, transport: 'stdio' | 'streamableHttp' | 'sse'): string[] =>
  transport === 'stdio' ? ['node', join(ROOT, 'node_modules', pkg, 'dist/index.js'), 'stdio'] : ['env', 'PORT={{port}}', 'node', join(ROOT, 'node_modules', pkg, 'dist/index.js'), transport];
export const CURRENT_PACKAGE = '@modelcontextprotocol/server-everything';
/** The same server, an older release (pinned under an npm alias): its initialize result has no "tasks" capability. */
export const OLDER_PACKAGE = 'server-everything-2026.1.14';
/** How a replay against the older release names the drift. */
export const OLDER_DRIFT = '$.result.capabilities.tasks: expected {"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}, got nothing (missing)';

/** The workload client's output (one JSON line per outcome) as kind -> value. */
export function workloadOutcomes(stdout: string): Record<string, unknown> {
  return Object.fromEntries(stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; value: unknown }).map((l) => [l.kind, l.value]));
}

/** The outcomes a served session must give the client exactly as the live server did. */
export const SERVED_KINDS = ['echo', 'sampling', 'elicitation', 'long', 'cancelled', 'roots', 'roots-asked'];
