import { resolve, join } from 'node:path';
import { flag, sessionArg, str, type ParsedArgs } from '../argv.js';
import { recordArtifact } from '../../../agent-tty/host/artifacts.js';
import type { CommandDef } from '../command.js';
import type { AgentContext } from '../config.js';
import { AgentError, AgentExit } from '../../../agent-tty/errors.js';
import { newId } from '../../../agent-tty/ids.js';
import { sessionPaths } from '../../../agent-tty/paths.js';
import { asScreenSnapshot, captureSnapshot } from '../../../agent-tty/host/capture.js';
import { canonicalProfile, profileNames } from '../../../render/profiles.js';

export const snapshot: CommandDef = {
  name: 'snapshot',
  maxPositionals: 1,
  summary: 'the screen as structured data (default) or text',
  usage: 'agent-tty snapshot SESSION_ID [--format structured|text] [--include-scrollback] [--include-cells]',
  options: { format: 'string', 'include-scrollback': 'boolean', 'include-cells': 'boolean' },
  async run(ctx: AgentContext, args: ParsedArgs) {
    const id = sessionArg(args, 'snapshot');
    const format = str(args, 'format') ?? 'structured';
    if (format !== 'structured' && format !== 'text') throw new AgentError('INVALID_INPUT', `snapshot: --format must be structured or text, got ${JSON.stringify(format)}`, { format });
    const result = await captureSnapshot(ctx, id, { format, includeScrollback: flag(args, 'include-scrollback'), includeCells: flag(args, 'include-cells') });
    const human = format === 'text'
      ? String(result.text)
      : [...((result.scrollbackLines as string[] | undefined) ?? []), ...(result.visibleLines as string[])].map((l) => l.trimEnd()).join('\n').replace(/\n+$/, '');
    return { result, human };
  },
};

export const screenshot: CommandDef = {
  name: 'screenshot',
  maxPositionals: 1,
  summary: 'render the screen to a deterministic PNG',
  usage: `agent-tty screenshot SESSION_ID [--out FILE.png] [--profile NAME] [--show-cursor|--hide-cursor]
Profiles: ${profileNames().join(', ')}. Default path: the session's artifacts directory.`,
  options: { out: 'string', 'show-cursor': 'boolean', 'hide-cursor': 'boolean' },
  async run(ctx: AgentContext, args: ParsedArgs) {
    const id = sessionArg(args, 'screenshot');
    if (flag(args, 'show-cursor') && flag(args, 'hide-cursor')) throw new AgentError('INVALID_INPUT', 'screenshot: --show-cursor and --hide-cursor exclude each other', {});
    let profile: string;
    try {
      profile = canonicalProfile(ctx.profile ?? 'reference-dark');
    } catch (err) {
      throw new AgentError('INVALID_INPUT', (err as Error).message, { profile: ctx.profile, known: profileNames() });
    }
    const snap = await captureSnapshot(ctx, id, { includeCells: true, persist: false });
    const shotId = newId('shot');
    const capturedAtSeq = snap.capturedAtSeq as number;
    const out = str(args, 'out') ?? join(sessionPaths(ctx.home, id).artifactsDir, `screenshot-${capturedAtSeq}-${profile}-${shotId}.png`);
    const { screenshotSnapshot } = await import('../../../render/screenshot/screenshot.js');
    const { closeRenderer } = await import('../../../render/browser/renderer.js');
    let shot;
    try {
      shot = await screenshotSnapshot(asScreenSnapshot(snap), capturedAtSeq, {
        profile,
        cursor: flag(args, 'show-cursor') ? 'show' : flag(args, 'hide-cursor') ? 'hide' : 'auto',
        out: resolve(ctx.io.cwd, out),
      });
    } finally {
      await closeRenderer();
    }
    const { png: _png, ...fields } = shot;
    recordArtifact(ctx.home, id, { artifactId: shotId, kind: 'screenshot', path: shot.artifactPath!, createdAt: new Date().toISOString(), capturedAtSeq });
    void AgentExit;
    return { result: { sessionId: id, screenshotId: shotId, ...fields }, human: `Screenshot saved: ${shot.artifactPath}` };
  },
};
