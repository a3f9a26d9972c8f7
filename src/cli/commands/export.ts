import { usageError } from '../../core/diagnostics/errors.js';
import { resultEnvelope } from '../../core/diagnostics/envelope.js';
import { writeFileAtomic } from '../../core/files/atomic-write.js';
import { convertCast } from '../../tape/asciicast/convert.js';
import { jsonForTerminal } from '../../core/text/terminal-safe.js';
import { castToHtml } from '../../report/export-html.js';
import { parseIntOption } from '../args.js';
import { defineCommand } from '../command.js';
import { resolveProfile } from '../../render/profiles.js';
import { parsePosition } from './snapshot.js';
import { gifOptions } from './export-gif-options.js';

export const command = defineCommand({
  name: 'export',
  summary: 'convert a cast: asciicast v2/v3, a self-contained HTML player, an SVG screen, a GIF or a WebM video',
  usage: ['FILE.cast --format asciicast|v2|v3|html|svg|gif|webm --out FILE [options]'],
  description: `formats:
  asciicast  asciicast v3 (seed 002's name; the same as v3)
  v2, v3     convert between asciicast versions (inputs, markers, resizes and the exit kept)
  html       a self-contained page playing the cast in asciinema-player (no network)
  svg        the screen at --at (default: the end) as an SVG with the used glyphs embedded
  gif        an animated GIF: a frame where the screen changed, the changed rectangle only
  webm       a video drawn by the screenshot renderer and encoded with ffmpeg`,
  options: {
    format: { type: 'string', arg: 'F', help: 'asciicast, v2, v3, html, svg, gif or webm (required)' },
    out: { type: 'string', arg: 'FILE', path: true, help: 'where to write it (required)' },
    json: { type: 'boolean', default: false, help: 'one JSON result envelope on stdout' },
    at: { type: 'string', arg: 'POS', section: 'svg options', help: 'a marker name, #N or seconds (default: the end)' },
    fps: { type: 'string', arg: 'N', section: 'gif and webm options', help: 'frames per second (webm: default 10; gif: at most, default 30, up to 50)' },
    'idle-time-limit': { type: 'string', arg: 'S', section: 'gif and webm options', help: "shorten pauses longer than S seconds (default: the cast's idle_time_limit, else 2)" },
    speed: { type: 'string', arg: 'X', section: 'gif options', help: 'play X times faster (default 1)' },
    from: { type: 'string', arg: 'POS', section: 'gif options', help: 'start after a marker name, #N or at seconds' },
    to: { type: 'string', arg: 'POS', section: 'gif options', help: 'end after a marker name, #N or at seconds' },
    loop: { type: 'string', arg: 'N', section: 'gif options', help: 'play N times (default 0: for ever)' },
    profile: { type: 'string', arg: 'NAME', section: 'gif, svg and webm options', help: 'render profile (reference-dark, reference-light; aliases dark, light)' },
    'hide-cursor': { type: 'boolean', default: false, section: 'gif, svg and webm options', help: 'never draw the cursor' },
  },
  positionals: { min: 1, max: 1, message: 'give exactly one cast' },
  pathPositionals: true,
  async run({ values, positionals, io }) {
    if (!values.out) throw usageError('export: --out FILE is required');
    const [input] = positionals;
    const format = values.format;
    let result: Record<string, unknown>;
    if (format === 'v2' || format === 'v3' || format === 'asciicast') {
      result = await convertCast(input, values.out, format === 'asciicast' ? 'v3' : format);
    } else if (format === 'html') {
      writeFileAtomic(values.out, await castToHtml(input));
      result = {};
    } else if (format === 'svg') {
      const { writeSvgOfCast } = await import('../../render/svg/write.js');
      const { artifactPath: _path, ...fields } = await writeSvgOfCast(input, parsePosition(values.at), values.out, { profile: values.profile, cursor: values['hide-cursor'] ? 'hide' : 'auto' });
      result = fields;
    } else if (format === 'gif') {
      if (values.profile !== undefined) resolveProfile(values.profile);
      const { castToGif } = await import('../../render/gif/export.js');
      result = { ...(await castToGif(input, values.out, gifOptions(values))) };
    } else if (format === 'webm') {
      const idle = values['idle-time-limit'] === undefined ? undefined : Number(values['idle-time-limit']);
      if (idle !== undefined && !(Number.isFinite(idle) && idle > 0)) throw usageError(`--idle-time-limit expects a number of seconds > 0, got ${JSON.stringify(values['idle-time-limit'])}`);
      if (values.profile !== undefined) resolveProfile(values.profile); // an unknown profile is a usage error before Chromium or ffmpeg start
      const { castToWebm } = await import('../../render/video/export-video.js');
      result = await castToWebm(input, values.out, {
        fps: parseIntOption('fps', values.fps, 10, 1),
        idleTimeLimit: idle,
        profile: values.profile,
        cursor: values['hide-cursor'] ? 'hide' : 'auto',
        ...(io.env.TAPEDECK_FFMPEG ? { ffmpeg: io.env.TAPEDECK_FFMPEG } : {}),
      });
    } else {
      throw usageError(`export: --format must be asciicast, v2, v3, html, svg, gif or webm, got ${JSON.stringify(format ?? '')}`);
    }
    if (values.json) io.stdout.write(`${jsonForTerminal(resultEnvelope('export', { format, out: values.out, ...result }))}\n`);
    else io.stderr.write(`tapedeck: wrote ${values.out}\n`);
    return 0;
  },
});
