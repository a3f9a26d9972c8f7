import { usageError } from '../../core/errors.js';
import { resultEnvelope } from '../../core/envelope.js';
import { writeFileAtomic } from '../../core/atomic-write.js';
import { convertCast } from '../../tape/asciicast-convert.js';
import { castToHtml } from '../../report/export-html.js';
import { parseIntOption, parseOptions } from '../args.js';
import { resolveProfile } from '../../render/profiles.js';

const HELP = `usage: tapedeck export FILE.cast --format asciicast|v2|v3|html|webm --out FILE [options]

  asciicast  asciicast v3 (seed 002's name; the same as v3)
  v2, v3   convert between asciicast versions (inputs, markers, resizes and the exit kept)
  html     a self-contained page playing the cast in asciinema-player (no network)
  webm     a video drawn by the screenshot renderer and encoded with ffmpeg

webm options:
  --fps N              frames per second (default 10)
  --idle-time-limit S  shorten pauses longer than S seconds (default 2)
  --profile NAME       render profile (reference-dark, reference-light; aliases dark, light)
  --hide-cursor
`;

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { values, positionals } = parseOptions('export', argv, {
    format: { type: 'string' },
    out: { type: 'string' },
    fps: { type: 'string' },
    'idle-time-limit': { type: 'string' },
    profile: { type: 'string' },
    'hide-cursor': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  });
  if (positionals.length !== 1) throw usageError('export: give exactly one cast');
  if (!values.out) throw usageError('export: --out FILE is required');
  const [input] = positionals;
  const format = values.format;
  let result: Record<string, unknown>;
  if (format === 'v2' || format === 'v3' || format === 'asciicast') {
    result = await convertCast(input, values.out, format === 'asciicast' ? 'v3' : format);
  } else if (format === 'html') {
    writeFileAtomic(values.out, await castToHtml(input));
    result = {};
  } else if (format === 'webm') {
    const idle = values['idle-time-limit'] === undefined ? undefined : Number(values['idle-time-limit']);
    if (idle !== undefined && !(Number.isFinite(idle) && idle > 0)) throw usageError(`--idle-time-limit expects a number of seconds > 0, got ${JSON.stringify(values['idle-time-limit'])}`);
    if (values.profile !== undefined) resolveProfile(values.profile); // an unknown profile is a usage error before Chromium or ffmpeg start
    const { castToWebm } = await import('../../render/export-video.js');
    const { closeRenderer } = await import('../../render/renderer.js');
    try {
      result = await castToWebm(input, values.out, {
        fps: parseIntOption('fps', values.fps, 10, 1),
        idleTimeLimit: idle,
        profile: values.profile,
        cursor: values['hide-cursor'] ? 'hide' : 'auto',
      });
    } finally {
      await closeRenderer();
    }
  } else {
    throw usageError(`export: --format must be asciicast, v2, v3, html or webm, got ${JSON.stringify(format ?? '')}`);
  }
  if (values.json) process.stdout.write(`${JSON.stringify(resultEnvelope('export', { format, out: values.out, ...result }))}\n`);
  else process.stderr.write(`tapedeck: wrote ${values.out}\n`);
  return 0;
}
