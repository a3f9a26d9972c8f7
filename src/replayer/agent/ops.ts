import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseUnifiedDiff } from '../../core/diagnostics/apply-fixes.js';
import { resolveUpdatePolicy } from '../../core/config/ci.js';
import type { DiagnosticEnvelope } from '../../core/diagnostics/envelope.js';
import { ExitCode } from '../../core/diagnostics/exit-codes.js';
import { packagePath } from '../../core/package-root.js';
import { AGENT_PROTOCOL, RequestError, type AgentContext } from './wire.js';

/** One op: reads its request keys, emits its lines, resolves with the exit code its done line carries. */
export type AgentOp = (req: Record<string, unknown>, ctx: AgentContext) => Promise<number>;

export function tapedeckVersion(): string {
  return (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
}

/** The request keys, typed as seed 000 asks: a type mismatch is a `kind:"error"`, the loop goes on. */
function keys(op: string, req: Record<string, unknown>) {
  const wrong = (key: string, what: string) => new RequestError(`${op}: "${key}" must be ${what}, got ${JSON.stringify(req[key])}`);
  return {
    str(key: string, required = false): string | undefined {
      const v = req[key];
      if (v === undefined) {
        if (required) throw new RequestError(`${op}: missing "${key}"`);
        return undefined;
      }
      if (typeof v !== 'string' || v === '') throw wrong(key, 'a non-empty string');
      return v;
    },
    bool(key: string): boolean {
      const v = req[key];
      if (v === undefined) return false;
      if (typeof v !== 'boolean') throw wrong(key, 'true or false');
      return v;
    },
    int(key: string): number | undefined {
      const v = req[key];
      if (v === undefined) return undefined;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw wrong(key, 'a whole number >= 0');
      return v;
    },
    strings(key: string): string[] | undefined {
      const v = req[key];
      if (v === undefined) return undefined;
      if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw wrong(key, 'a list of strings');
      return v as string[];
    },
  };
}

const version: AgentOp = async (_req, ctx) => {
  ctx.emit({ kind: 'result', op: 'version', ok: true, tapedeck_version: tapedeckVersion(), agent_protocol: AGENT_PROTOCOL });
  return 0;
};

const explain: AgentOp = async (req, ctx) => {
  const code = keys('explain', req).str('code', true)!;
  const { codeInfo } = await import('../../core/diagnostics/codes.js');
  const info = codeInfo(code);
  if (!info) throw new RequestError(`unknown code: ${code} (tapedeck explain lists them)`);
  ctx.emit({ kind: 'result', op: 'explain', ok: true, code: info.code, title: info.title, text: info.explanation });
  return 0;
};

/**
 * `{"op":"replay","path":"t.ndjson","command":["node","server.js"]}`: as
 * `tapedeck replay PATH --json -- CMD`: one `envelope` per drift, a result
 * with the counts, done with replay's exit code. `paths` for several tapes;
 * `include_source`, `single_shot`, `update`, `transport` as replay's flags.
 */
const replay: AgentOp = async (req, ctx) => {
  const k = keys('replay', req);
  const paths = k.strings('paths') ?? (k.str('path') ? [k.str('path')!] : undefined);
  if (!paths || paths.length === 0) throw new RequestError('replay: missing "path"');
  const command = k.strings('command') ?? [];
  const transport = k.str('transport');
  if (transport !== undefined && transport !== 'stdio' && transport !== 'http' && transport !== 'unix') throw new RequestError(`replay: "transport" must be stdio, http or unix, got ${JSON.stringify(transport)}`);
  const includeSource = k.bool('include_source');
  const update = k.bool('update');
  const [{ replayTapes }, { resolveReplaySettings }, { driftToEnvelope, withSource }, { projectTrust }] = await Promise.all([
    import('../replay-tapes.js'),
    import('../settings.js'),
    import('../protocol/envelopes.js'),
    import('../tape-trust.js'),
  ]);
  const { config, masks, ...settings } = resolveReplaySettings({ cwd: ctx.cwd });
  const writePending = !update && resolveUpdatePolicy(undefined, ctx.env).mode !== 'none';
  // Tapes are found from the agent's directory; envelopes name them as the request did (relative to it).
  const result = await replayTapes(paths.map((p) => resolve(ctx.cwd, p)), {
    command,
    protocol: { ...settings, update, writePending, singleShot: k.bool('single_shot'), env: ctx.env, cwd: ctx.cwd },
    transport: transport === undefined ? { transport: 'auto' } : transport === 'stdio' ? undefined : { transport },
    terminal: { mask: masks, baseEnv: ctx.env, baseCwd: ctx.cwd, update, writePending, trust: projectTrust({ configPath: config.path, goldens: config.goldens, cwd: ctx.cwd }) },
    jobs: 1,
    onTapeDone: (_t, done, total) => ctx.emit({ kind: 'progress', phase: 'replay', pct: done / total }),
  });
  const files = new Map<string, string[] | undefined>();
  const envelopes: DiagnosticEnvelope[] = [];
  for (const tape of result.tapes) {
    for (const d of tape.drifts) {
      const env = driftToEnvelope({ ...d, tape: shown(d.tape, ctx.cwd), ...(d.file ? { file: shown(d.file, ctx.cwd) } : {}) });
      envelopes.push(includeSource ? withSource(env, files, (f) => readFileSync(resolve(ctx.cwd, f), 'utf8')) : env);
    }
  }
  for (const env of envelopes) ctx.emit({ kind: 'envelope', ...env });
  ctx.state.lastPath = paths[paths.length - 1];
  ctx.state.lastEnvelopes = envelopes;
  const pairs = result.tapes.reduce((n, t) => n + ('pairCount' in t ? t.pairCount : 0), 0);
  ctx.emit({ kind: 'result', op: 'replay', ok: result.exitCode === 0, tapes: result.tapes.length, pairs, drifts: result.driftCount, fix_count: envelopes.filter((e) => e.fix).length });
  return result.exitCode;
};

/**
 * `{"op":"fix","path":"t.ndjson","code":"TD1001","alternative":0,"write":false}`:
 * seed 000's fix op over the envelopes of this session's last replay (run
 * `replay` first; `path` defaults to the last path): one `patch` with the
 * chosen alternative's diff and, with `write` or `dry_run`, the resulting
 * file; `write` applies it (an explicit request: no confidence threshold).
 */
const fix: AgentOp = async (req, ctx) => {
  const k = keys('fix', req);
  const path = k.str('path') ?? ctx.state.lastPath;
  const code = k.str('code', true)!;
  const alternative = k.int('alternative') ?? 0;
  const write = k.bool('write');
  const dryRun = k.bool('dry_run');
  if (!path) throw new RequestError('fix: missing "path" (and no replay ran in this session)');
  const file = resolve(ctx.cwd, path);
  const env = ctx.state.lastEnvelopes.find((e) => e.code === code && resolve(ctx.cwd, e.span.file) === file);
  if (!env) throw new RequestError(`fix: no ${code} envelope for ${path} in this session (send a replay of it first)`, ExitCode.drift);
  const alt = env.fix?.alternatives[alternative];
  if (!alt) throw new RequestError(`fix: the ${code} envelope has no alternative ${alternative}`, ExitCode.drift);
  let applied = false;
  let content: string | undefined;
  if (write) {
    const { applyEnvelopes } = await import('../../core/diagnostics/apply-fixes.js');
    // Applied where the agent runs: the envelope's paths are relative to its directory.
    const abs = (d: string) => d.replace(/^(---|\+\+\+) ([ab]\/)?(.*)$/gm, (_m, side: string, ab: string | undefined, f: string) => `${side} ${ab ?? ''}${resolve(ctx.cwd, f)}`);
    const located = { ...env, span: { ...env.span, file }, fix: { ...env.fix!, alternatives: env.fix!.alternatives.map((a) => ({ ...a, diff: abs(a.diff) })) } };
    const [outcome] = applyEnvelopes([located], { alternative, threshold: 0 });
    if (!outcome.applied) throw new RequestError(`fix: not applied: ${outcome.reason}`, ExitCode.drift);
    applied = true;
    content = readFileSync(file, 'utf8');
  } else if (dryRun) content = spliced(readFileSync(file, 'utf8'), alt.diff);
  ctx.emit({ kind: 'patch', applied, diff: alt.diff, ...(content === undefined ? {} : { new_content: content }) });
  ctx.emit({ kind: 'result', op: 'fix', ok: true, applied, diff_len: alt.diff.length });
  return 0;
};

/** A path under the agent's directory as relative to it (as a client names it), else as it is. */
function shown(path: string, cwd: string): string {
  return path.startsWith(`${cwd}/`) ? path.slice(cwd.length + 1) : path;
}

/** The file with a diff's hunks spliced in, highest first (the preview of what `write` would do). */
function spliced(text: string, diff: string): string {
  const nl = text.endsWith('\n');
  const lines = (nl ? text.slice(0, -1) : text).split('\n');
  for (const h of parseUnifiedDiff(diff).sort((a, b) => b.oldStart - a.oldStart)) lines.splice(h.oldStart - 1, h.oldLines.length, ...h.newLines);
  return `${lines.join('\n')}${nl ? '\n' : ''}`;
}

/** `{"op":"snapshot","path":"t.cast","at":"marker"}`: `tapedeck snapshot --format structured` as a result. */
const snapshot: AgentOp = async (req, ctx) => {
  const k = keys('snapshot', req);
  const path = k.str('path', true)!;
  const at = k.str('at');
  const { playCast } = await import('../../session/cast/play.js');
  const position = at === undefined ? undefined : /^\d+(\.\d+)?$/.test(at) ? { seconds: Number(at) } : /^#\d+$/.test(at) ? { markerIndex: Number(at.slice(1)) } : { marker: at };
  const played = await playCast(resolve(ctx.cwd, path), position);
  try {
    const snap = played.screen.snapshot({ includeScrollback: k.bool('include_scrollback'), includeCells: k.bool('include_cells') });
    ctx.state.lastPath = path;
    ctx.emit({ kind: 'result', op: 'snapshot', ok: true, file: path, at: at ?? null, time: played.time, ...snap });
  } finally {
    played.screen.dispose();
  }
  return 0;
};

/** `{"op":"review","path":"goldens"}`: the pending goldens (`.new`) under it; `accept`/`reject`: "all" or a list of goldens. */
const review: AgentOp = async (req, ctx) => {
  const k = keys('review', req);
  const root = resolve(ctx.cwd, k.str('path') ?? '.');
  const pick = (key: string): ((golden: string) => boolean) | undefined => {
    const v = req[key];
    if (v === undefined) return undefined;
    if (v === 'all') return () => true;
    const list = k.strings(key);
    return (g) => list!.some((p) => resolve(ctx.cwd, p) === g);
  };
  const accept = pick('accept');
  const reject = pick('reject');
  const { findPending, acceptPending, rejectPending } = await import('../../core/golden/pending.js');
  const shown = (p: string) => (p.startsWith(`${ctx.cwd}/`) ? p.slice(ctx.cwd.length + 1) : p);
  const pending = findPending([root]).map((p) => {
    const action = accept?.(p.golden) ? 'accepted' : reject?.(p.golden) ? 'rejected' : 'pending';
    if (action === 'accepted') acceptPending(p);
    if (action === 'rejected') rejectPending(p);
    return { golden: shown(p.golden), candidate: shown(p.candidate), new: p.isNew, status: action };
  });
  ctx.emit({ kind: 'result', op: 'review', ok: true, pending });
  return 0;
};

export const OPS = { version, explain, replay, fix, snapshot, review } satisfies Record<string, AgentOp>;
