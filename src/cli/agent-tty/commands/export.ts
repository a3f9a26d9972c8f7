import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { sessionArg, str, type ParsedArgs } from '../argv.js';
import { recordArtifact } from '../../../agent-tty/host/artifacts.js';
import type { CommandDef } from '../command.js';
import type { AgentContext } from '../config.js';
import { AgentError, toAgentError } from '../../../agent-tty/errors.js';
import { exportSessionCast } from '../../../agent-tty/host/export-cast.js';
import { newId } from '../../../agent-tty/ids.js';
import { sessionPaths } from '../../../agent-tty/paths.js';
import { loadSession } from '../../../agent-tty/client/session-access.js';
import { canonicalProfile } from '../../../render/profiles.js';

/** Export failures are EXPORT_ERROR (exit 7) unless the input itself was wrong. */
function exportError(err: unknown, details: Record<string, unknown>): AgentError {
  const e = toAgentError(err);
  if (e.exitCode === 2 || e.exitCode === 3 || e.exitCode === 6) return e;
  return new AgentError('EXPORT_ERROR', e.message, { ...e.details, ...details });
}

export const recordExport: CommandDef = {
  name: 'record export',
  maxPositionals: 1,
  summary: 'export the session as an asciicast (replayable with tapedeck replay) or a WebM video',
  usage: `agent-tty record export SESSION_ID --format asciicast|webm [--out FILE] [--profile NAME]
Derived from the event log: the same log and profile give the same file.`,
  options: { format: 'string', out: 'string', fps: 'string' },
  async run(ctx: AgentContext, args: ParsedArgs) {
    const id = sessionArg(args, 'record export');
    const format = str(args, 'format') ?? 'asciicast';
    if (format !== 'asciicast' && format !== 'webm') throw new AgentError('INVALID_INPUT', `record export: --format must be asciicast or webm, got ${JSON.stringify(format)}`, { format });
    const record = loadSession(ctx, id);
    const artifactId = newId(format === 'asciicast' ? 'rec' : 'vid');
    const out = resolve(ctx.io.cwd, str(args, 'out') ?? join(sessionPaths(ctx.home, record.sessionId).artifactsDir, `${artifactId}.${format === 'asciicast' ? 'cast' : 'webm'}`));
    let result: Record<string, unknown>;
    try {
      mkdirSync(dirname(out), { recursive: true });
      if (format === 'asciicast') {
        const r = exportSessionCast(ctx.home, record, out);
        result = { sessionId: record.sessionId, artifactId, format, artifactPath: out, events: r.events, durationSeconds: r.durationSeconds };
      } else {
        const profile = canonicalProfile(ctx.profile ?? 'reference-dark');
        // The video is drawn from the same cast, so it inherits the cast's determinism.
        const cast = join(sessionPaths(ctx.home, record.sessionId).dir, `.${artifactId}.cast`);
        exportSessionCast(ctx.home, record, cast);
        const { castToWebm } = await import('../../../render/video/export-video.js');
        const { closeRenderer } = await import('../../../render/browser/renderer.js');
        const { rmSync } = await import('node:fs');
        try {
          const fps = str(args, 'fps') === undefined ? 10 : Number(str(args, 'fps'));
          if (!Number.isInteger(fps) || fps < 1 || fps > 60) throw new AgentError('INVALID_INPUT', `--fps must be a whole number from 1 to 60, got ${JSON.stringify(str(args, 'fps'))}`, {});
          const r = await castToWebm(cast, out, { fps, profile });
          result = { sessionId: record.sessionId, artifactId, format, artifactPath: out, profileName: profile, frames: r.frames, durationSeconds: r.seconds };
        } finally {
          await closeRenderer();
          if (!ctx.keepTemp) rmSync(cast, { force: true });
        }
      }
    } catch (err) {
      throw exportError(err, { sessionId: record.sessionId, format, out });
    }
    recordArtifact(ctx.home, record.sessionId, { artifactId, kind: format === 'asciicast' ? 'recording' : 'video', path: out, createdAt: new Date().toISOString(), format });
    return { result, human: `Exported ${format}: ${out}` };
  },
};
