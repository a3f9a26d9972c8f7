import { flag, sessionArg, type ParsedArgs } from '../argv.js';
import { artifactHealth } from '../../../agent-tty/host/artifacts.js';
import type { CommandDef } from '../command.js';
import type { AgentContext } from '../config.js';
import { AgentError } from '../../../agent-tty/errors.js';
import { readEventLog } from '../../../agent-tty/host/event-store.js';
import { isTerminal, listSessionIds, readManifest, type SessionRecord } from '../../../agent-tty/manifest.js';
import { checkSessionId, sessionPaths } from '../../../agent-tty/paths.js';
import { reconcile, terminationCategory } from '../../../agent-tty/client/reconcile.js';
import { callHost } from '../../../agent-tty/client/session-access.js';
import { displayCommand } from '../../../tape/asciicast/write.js';

export const list: CommandDef = {
  name: 'list',
  maxPositionals: 0,
  summary: 'list running sessions (--all: every session in the home)',
  usage: 'agent-tty list [--all]',
  options: { all: 'boolean' },
  async run(ctx: AgentContext, args: ParsedArgs) {
    const all = flag(args, 'all');
    const sessions: Record<string, unknown>[] = [];
    for (const id of listSessionIds(ctx.home)) {
      let record: SessionRecord;
      try {
        record = reconcile(ctx.home, readManifest(ctx.home, id)).record;
      } catch {
        continue; // a half-created or foreign directory is not a session
      }
      if (!all && isTerminal(record.status)) continue;
      sessions.push({
        sessionId: record.sessionId,
        status: record.status,
        command: record.command,
        createdAt: record.createdAt,
        ...(record.name !== undefined ? { name: record.name } : {}),
        pid: record.childPid,
      });
    }
    const human = sessions.length === 0 ? 'No sessions.' : sessions.map((s) => `${s.sessionId}  ${String(s.status).padEnd(9)}  ${displayCommand(s.command as string[])}${s.name ? `  (${s.name})` : ''}`).join('\n');
    return { result: { sessions }, human };
  },
};

export const inspect: CommandDef = {
  name: 'inspect',
  maxPositionals: 1,
  summary: 'the merged session record: status, size, exit, events, artifacts',
  usage: 'agent-tty inspect SESSION_ID',
  options: {},
  async run(ctx: AgentContext, args: ParsedArgs) {
    const id = checkSessionId(sessionArg(args, 'inspect'));
    let session = readManifest(ctx.home, id);
    let usedOfflineReplay = false;
    if (!isTerminal(session.status) && session.hostPid !== null) {
      try {
        session = (await callHost(ctx, id, 'inspect', {})).session as SessionRecord;
      } catch (err) {
        if (!(err instanceof AgentError) || (err.code !== 'SESSION_NOT_RUNNING' && err.code !== 'HOST_TIMEOUT')) throw err;
        // §7.2: the host is unreachable: the reconciled on-disk state is the answer.
        session = reconcile(ctx.home, readManifest(ctx.home, id)).record;
        usedOfflineReplay = true;
      }
    } else {
      // An ended session whose lingering host was killed only needs its pids cleared; a live one is repaired.
      const r = reconcile(ctx.home, session);
      usedOfflineReplay = r.repaired && !isTerminal(session.status);
      session = r.record;
    }
    const log = readEventLog(sessionPaths(ctx.home, id).events);
    const end = isTerminal(session.status) ? Date.parse(session.updatedAt) : Date.now();
    const result = {
      session,
      eventCount: log.eventCount,
      uptime: Math.max(0, end - Date.parse(session.createdAt)),
      ...(log.lastEventSeq !== null ? { lastEventSeq: log.lastEventSeq } : {}),
      terminationCategory: terminationCategory(session),
      artifacts: artifactHealth(ctx.home, id),
      ...(usedOfflineReplay ? { usedOfflineReplay: true } : {}),
    };
    const exit = session.exitCode !== null || session.exitSignal ? `, exit ${session.exitSignal ?? session.exitCode}` : '';
    const human = [
      `${id}  ${session.status} (${result.terminationCategory}${exit})`,
      `  command  ${displayCommand(session.command)}`,
      `  size     ${session.rows}x${session.cols}`,
      `  events   ${log.eventCount}`,
      `  pids     host ${session.hostPid ?? '-'}, child ${session.childPid ?? '-'}`,
    ].join('\n');
    return { result, human };
  },
};
