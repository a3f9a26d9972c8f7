import type { TapeSummary } from './summary.js';
import { lazyPackage } from '../core/lazy-package.js';
import type { Drift } from '../core/diagnostics/drift.js';
import { escapeHtml, playerAssets, pngDataUri, scriptJson } from './assets.js';
import { splitMessages } from '../replayer/protocol/compare.js';

// A line diff only for a report with a drifted non-JSON response.
const diff = lazyPackage<typeof import('diff')>('diff');

/**
 * The review report: one self-contained HTML file per run (assets inlined,
 * no network) with a summary, and per drift what a reviewer needs to decide:
 * protocol tapes show the request and the expected and actual responses with
 * the changed lines and JSON paths marked; terminal tapes show the screens side
 * by side, screenshots with a slider and a blend, and players for the recorded
 * and the replayed session with markers at the checkpoints and the drift.
 */
export interface ReportScreenshot {
  label: string;
  expected?: Buffer;
  actual?: Buffer;
  diff?: Buffer;
}

export interface ReportTape extends TapeSummary {
  /** Terminal tapes: the recorded cast, and the live session as a cast. */
  recordedCast?: string;
  replayedCast?: string;
  /** Player markers: [seconds, label]. */
  recordedMarkers?: Array<[number, string]>;
  replayedMarkers?: Array<[number, string]>;
  screenshots?: ReportScreenshot[];
}

interface PlayerSpec {
  id: string;
  cast: string;
  markers: Array<[number, string]>;
  poster?: string;
}

export interface ReportRun {
  title?: string;
  startedAt: Date;
  durationMs: number;
  tapes: ReportTape[];
}

const STYLE = `
:root { color-scheme: light; --bad: #b42318; --good: #067647; --line: #d0d5dd; --bg: #f9fafb; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #101828; background: #fff; }
header { padding: 16px 24px; border-bottom: 1px solid var(--line); background: var(--bg); }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; } h3 { font-size: 14px; margin: 16px 0 6px; }
main { padding: 0 24px 48px; }
.summary { display: flex; gap: 24px; flex-wrap: wrap; } .summary b { font-size: 18px; }
.ok { color: var(--good); } .drift { color: var(--bad); }
table.tapes { border-collapse: collapse; margin-top: 12px; } table.tapes td, table.tapes th { border-bottom: 1px solid var(--line); padding: 4px 12px 4px 0; text-align: left; }
section.tape { border-top: 2px solid var(--line); margin-top: 24px; }
article.drift-item { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 12px 0; }
pre { font: 12px/1.35 ui-monospace, 'DejaVu Sans Mono', monospace; background: var(--bg); border: 1px solid var(--line); padding: 8px; overflow: auto; margin: 4px 0; white-space: pre; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; } .side > div { min-width: 0; }
.del { background: #fee4e2; display: block; } .add { background: #dcfae6; display: block; }
ul.paths { margin: 4px 0; padding-left: 20px; } ul.paths code { background: #fef0c7; }
.shots { display: grid; grid-template-columns: repeat(3, max-content); gap: 12px; } .shots img { display: block; border: 1px solid var(--line); max-width: 420px; }
.compare { position: relative; display: inline-block; } .compare img { display: block; max-width: 640px; }
.compare .over { position: absolute; inset: 0; overflow: hidden; } .compare .over img { max-width: none; }
.player { margin: 6px 0 12px; }
`;

export function renderHtmlReport(run: ReportRun): string {
  const { js, css } = playerAssets();
  const drifted = run.tapes.filter((t) => t.drifts.length > 0 || t.failure);
  const players: PlayerSpec[] = [];
  const body = [
    `<header><h1>${escapeHtml(run.title ?? 'tapedeck replay report')}</h1>`,
    `<div class="summary"><span><b>${run.tapes.length}</b> tape(s)</span><span class="ok"><b>${run.tapes.length - drifted.length}</b> passed</span>`,
    `<span class="drift"><b>${drifted.length}</b> drifted</span><span><b>${run.tapes.reduce((n, t) => n + t.drifts.length, 0)}</b> drift(s)</span>`,
    `<span>${(run.durationMs / 1000).toFixed(2)} s</span><span>${escapeHtml(run.startedAt.toISOString())}</span></div></header><main>`,
    tapeTable(run.tapes),
    ...run.tapes.map((t, i) => tapeSection(t, i, players)),
    '</main>',
  ].join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(run.title ?? 'tapedeck replay report')}</title>
<style>${css}</style><style>${STYLE}</style></head>
<body>
${body}
<script>${js}</script>
<script>
window.tapedeckPlayers = {};
for (const p of ${scriptJson(players)}) {
  const el = document.getElementById(p.id);
  window.tapedeckPlayers[p.id] = AsciinemaPlayer.create({ data: p.cast }, el, { markers: p.markers, fit: 'width', idleTimeLimit: 1, poster: p.poster });
}
for (const input of document.querySelectorAll('input[data-slider]')) {
  const over = document.getElementById(input.dataset.slider);
  input.addEventListener('input', () => { over.style.width = input.value + '%'; });
}
for (const input of document.querySelectorAll('input[data-blend]')) {
  const over = document.getElementById(input.dataset.blend);
  input.addEventListener('input', () => { over.style.width = '100%'; over.style.opacity = String(input.value / 100); });
}
</script>
</body></html>
`;
}

function tapeTable(tapes: ReportTape[]): string {
  const rows = tapes
    .map((t, i) => {
      const state = t.failure ? `<a class="drift" href="#tape-${i}">failed</a>` : t.drifts.length === 0 ? '<span class="ok">passed</span>' : `<a class="drift" href="#tape-${i}">${t.drifts.length} drift(s)</a>`;
      return `<tr><td>${escapeHtml(t.tape)}</td><td>${t.kind}</td><td>${t.units}</td><td>${state}</td><td>${Math.round(t.durationMs)} ms</td></tr>`;
    })
    .join('\n');
  return `<table class="tapes"><thead><tr><th>tape</th><th>kind</th><th>${'pairs/steps'}</th><th>result</th><th>time</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function tapeSection(tape: ReportTape, index: number, players: PlayerSpec[]): string {
  if (tape.drifts.length === 0 && !tape.recordedCast && !tape.failure) return '';
  const verdict = tape.failure ? 'failed' : tape.drifts.length ? `${tape.drifts.length} drift(s)` : 'passed';
  const parts = [`<section class="tape" id="tape-${index}"><h2>${escapeHtml(tape.tape)} <span class="${tape.drifts.length || tape.failure ? 'drift' : 'ok'}">${verdict}</span></h2>`];
  if (tape.failure) parts.push(`<article class="drift-item failure" data-code="${escapeHtml(tape.failure.type)}"><h3>${escapeHtml(tape.failure.message)}</h3><pre>${escapeHtml(tape.failure.text)}</pre></article>`);
  if (tape.kind === 'terminal') {
    const cells: string[] = [];
    for (const [which, cast, markers] of [
      ['recorded', tape.recordedCast, tape.recordedMarkers],
      ['replayed', tape.replayedCast, tape.replayedMarkers],
    ] as const) {
      if (!cast) continue;
      const id = `player-${index}-${which}`;
      // The poster shows the first drift (or the first checkpoint), where a reviewer wants to look.
      const list = [...(markers ?? [])];
      const focus = list.find(([, label]) => label.startsWith('drift')) ?? list[0];
      players.push({ id, cast, markers: list, poster: focus ? `npt:${focus[0]}` : undefined });
      cells.push(`<div><h3>${which} session</h3><div class="player" id="${id}" data-player="${which}"></div></div>`);
    }
    if (cells.length) parts.push(`<div class="side">${cells.join('')}</div>`);
  }
  tape.drifts.forEach((d, i) => parts.push(driftArticle(tape, d, `${index}-${i}`)));
  tape.screenshots?.forEach((s, i) => parts.push(screenshotBlock(s, `${index}-s${i}`)));
  parts.push('</section>');
  return parts.join('\n');
}

function driftArticle(tape: ReportTape, d: Drift, id: string): string {
  const where = `${escapeHtml(d.tape)}:${d.line}`;
  const what = tape.kind === 'protocol' ? `pair ${d.pair}` : `step ${d.pair}`;
  const paths = d.details.filter((l) => /^(message \d+: )?\$/.test(l));
  const rest = d.details.filter((l) => !paths.includes(l));
  const out = [
    `<article class="drift-item" id="drift-${id}" data-code="${d.code}"><h3>${where} — ${what}: ${escapeHtml(d.title)} <code>${d.code}</code></h3>`,
    `<div>${tape.kind === 'protocol' ? 'request' : 'step'}: <code>${escapeHtml(d.request)}</code></div>`,
  ];
  if (paths.length) out.push(`<ul class="paths">${paths.map((p) => `<li><code>${escapeHtml(p)}</code></li>`).join('')}</ul>`);
  // With both sides shown below, the unified diff lines would only repeat them.
  const notes = d.actual !== undefined ? rest.filter((l) => !/^([-+ @]|\\ No newline)/.test(l)) : rest;
  if (notes.length) out.push(`<pre>${escapeHtml(notes.join('\n'))}</pre>`);
  if (d.actual !== undefined) {
    const [left, right] = sideBySide(prettyFor(tape.kind, d.expected), prettyFor(tape.kind, d.actual));
    out.push(`<div class="side"><div><h3>expected (tape)</h3><pre class="expected">${left}</pre></div><div><h3>actual (live)</h3><pre class="actual">${right}</pre></div></div>`);
  }
  out.push('</article>');
  return out.join('\n');
}

/** JSON messages pretty-printed one by one, so a changed value is a changed line. */
function prettyFor(kind: ReportTape['kind'], text: string): string {
  if (kind !== 'protocol') return text;
  return splitMessages(text)
    .map((m) => {
      try {
        return `${JSON.stringify(JSON.parse(m), null, 2)}\n`;
      } catch {
        return m.endsWith('\n') ? m : `${m}\n`;
      }
    })
    .join('');
}

/** Both sides, with removed lines marked on the left and added lines on the right. */
function sideBySide(expected: string, actual: string): [string, string] {
  let left = '';
  let right = '';
  for (const part of diff().diffLines(expected, actual)) {
    const text = escapeHtml(part.value.replace(/\n$/, ''));
    if (part.added) right += `<span class="add">${text}</span>`;
    else if (part.removed) left += `<span class="del">${text}</span>`;
    else {
      left += `${text}\n`;
      right += `${text}\n`;
    }
  }
  return [left, right];
}

function screenshotBlock(s: ReportScreenshot, id: string): string {
  const img = (label: string, png?: Buffer) => (png ? `<figure><figcaption>${label}</figcaption><img alt="${label}" data-shot="${label}" src="${pngDataUri(png)}"></figure>` : '');
  const out = [`<h3>screenshot: ${escapeHtml(s.label)}</h3><div class="shots">${img('expected', s.expected)}${img('actual', s.actual)}${img('diff', s.diff)}</div>`];
  if (s.expected && s.actual) {
    out.push(
      `<div class="compare"><img alt="expected" src="${pngDataUri(s.expected)}"><div class="over" id="over-${id}" style="width:50%"><img alt="actual" src="${pngDataUri(s.actual)}"></div></div>`,
      `<div><label>slider <input type="range" min="0" max="100" value="50" data-slider="over-${id}"></label> <label>blend <input type="range" min="0" max="100" value="50" data-blend="over-${id}"></label></div>`,
    );
  }
  return out.join('\n');
}
