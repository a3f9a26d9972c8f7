import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { GoldenResult, GoldenStore } from '../../core/golden/store.js';
import type { PixelCompareOptions } from '../../render/pixel/diff.js';
import type { TimedPicture } from '../../render/vhs/gif.js';
import type { Picture } from '../../render/vhs/window.js';
import type { VhsCommand } from '../../tape/vhs/index.js';
import { framePlan, pictures, vhsPng } from './media.js';
import type { VhsRunResult } from './run.js';

type Output = Extract<VhsCommand, { kind: 'Output' }>;

/** A media output's verdict, with the two pictures where it first differs (for the HTML report). */
export interface MediaCheck {
  golden: GoldenResult;
  /** PNGs of the first differing moment: the golden's and the run's. */
  pictures?: { expected?: Buffer; actual?: Buffer; label: string };
  /** Files written for a frames folder (or that would be). */
  frames?: number;
}

const png = async (p: Picture | undefined): Promise<Buffer | undefined> => {
  if (!p) return undefined;
  const { encodePng } = await import('../../render/pixel/png.js');
  return encodePng({ width: p.width, height: p.height, data: Buffer.from(p.data.buffer, p.data.byteOffset, p.data.length) });
};

/**
 * A .gif, .webm or .mp4 Output: rendered from the run's timeline and compared
 * as it plays with the existing file (byte-equal files match at once). The
 * encoding is skipped when nothing would be written: a match with nothing
 * to rewrite stores nothing.
 */
export async function checkAnimation(result: VhsRunResult, store: GoldenStore, output: Output, path: string, pixel: PixelCompareOptions): Promise<MediaCheck> {
  const plan = framePlan(result);
  const expected = store.read(path);
  const tps = plan.fps * plan.speed;
  let actual: Buffer;
  let decode: (b: Buffer) => Iterable<TimedPicture> | AsyncIterable<TimedPicture>;
  if (output.format === 'gif') {
    const { GifSink, decodeGif } = await import('../../render/vhs/gif.js');
    let sink: InstanceType<typeof GifSink> | undefined;
    for await (const f of pictures(result, plan)) {
      sink ??= new GifSink(tps);
      sink.add(f.picture, f.ticks);
    }
    actual = sink!.finish();
    decode = decodeGif;
  } else {
    const { encodeVideo, decodeVideo } = await import('../../render/vhs/video.js');
    const o = result.options;
    actual = await encodeVideo(pictures(result, plan), { format: output.format as 'webm' | 'mp4', width: o.width, height: o.height, fps: tps });
    decode = decodeVideo;
  }
  if (expected === undefined || expected.equals(actual)) return { golden: store.settle({ path, actual, verdict: expected && { pass: true }, displayPath: output.path }) };
  const { compareAnimations } = await import('../../render/vhs/compare.js');
  let verdict;
  try {
    verdict = await compareAnimations(decode(expected), decode(actual), pixel);
  } catch (err) {
    verdict = { pass: false, message: `the existing ${output.path} cannot be read (${(err as Error).message})` };
  }
  const message = verdict.pass ? undefined : `${output.path} differs: ${verdict.message}`;
  const golden = store.settle({ path, actual, verdict: { pass: verdict.pass, message }, displayPath: output.path });
  if (golden.pass) return { golden };
  const at = 'atMs' in verdict && verdict.atMs !== undefined ? ` at ${(verdict.atMs / 1000).toFixed(2)} s` : '';
  return { golden, pictures: { expected: await png('expected' in verdict ? verdict.expected : undefined), actual: await png('actual' in verdict ? verdict.actual : undefined), label: `${output.path}${at}` } };
}

/**
 * A frames folder Output: one PNG per captured frame, `frame-00001.png` on
 * (VHS's numbering, LoopOffset applied), each a golden checked by pixels; the
 * folder's verdict is theirs together. Frames the folder has beyond the run's
 * are drift, removed when the folder is rewritten.
 */
export async function checkFramesFolder(result: VhsRunResult, store: GoldenStore, output: Output, dir: string, pixel: PixelCompareOptions): Promise<MediaCheck> {
  const plan = framePlan(result);
  const { comparePngs } = await import('../../render/pixel/diff.js');
  const results: GoldenResult[] = [];
  let n = 0;
  let firstBad: MediaCheck['pictures'];
  for await (const f of pictures(result, plan)) {
    const bytes = await vhsPng(result, f.snapshot, f.picture);
    for (let i = 0; i < f.ticks; i++) {
      const name = `frame-${String(++n).padStart(5, '0')}.png`;
      const path = join(dir, name);
      const golden = store.check({ path, actual: bytes, displayPath: join(output.path, name), compare: (expected) => comparePngs(expected, bytes, pixel) });
      results.push(golden);
      if (!golden.pass && !firstBad) firstBad = { expected: store.read(path), actual: bytes, label: join(output.path, name) };
    }
  }
  const extra = existingFrames(dir).filter((name) => Number(name.slice(6, 11)) > n);
  if (extra.length && store.policy.mode === 'all') for (const name of extra) store.io.remove(join(dir, name));
  const bad = results.filter((r) => !r.pass);
  const status = bad.find((r) => r.status === 'missing') ? 'missing' : bad.length || (extra.length && store.policy.mode !== 'all') ? 'mismatch' : results.some((r) => r.status === 'updated') || extra.length ? 'updated' : results.some((r) => r.status === 'written') ? 'written' : 'matched';
  const pass = bad.length === 0 && (extra.length === 0 || store.policy.mode === 'all');
  const lines = [
    pass ? `${status === 'matched' ? 'matches' : status === 'written' ? 'wrote' : 'updated'} ${output.path} (${n} frames)` : `${output.path}: ${bad.length} of ${n} frames differ${extra.length && store.policy.mode !== 'all' ? `; the folder has ${extra.length} frames more than the run` : ''}`,
    ...bad.slice(0, 3).map((r) => r.message.split('\n')[0]),
  ];
  return { golden: { pass, status, message: lines.join('\n'), artifacts: bad.flatMap((r) => r.artifacts) }, frames: n, ...(pass ? {} : { pictures: firstBad }) };
}

function existingFrames(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => /^frame-\d{5}\.png$/.test(f));
  } catch {
    return [];
  }
}
