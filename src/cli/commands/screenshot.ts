import { jsonForTerminal } from '../../core/text/terminal-safe.js';
import { relative } from 'node:path';
import { defineCommand } from '../command.js';
import { TapedeckError, usageError } from '../../core/diagnostics/errors.js';
import { errorEnvelope, resultEnvelope } from '../../core/diagnostics/envelope.js';
import { screenshotCast } from '../../render/screenshot/cast.js';
import { screenshotFields } from '../../render/screenshot/screenshot.js';
import { profileNames } from '../../render/profiles.js';
import { parsePosition } from './snapshot.js';

export const command = defineCommand({
  name: 'screenshot',
  summary: 'render the screen of a terminal tape to a PNG (or an SVG)',
  usage: ['FILE.cast [--at MARKER|#N|SECONDS] [--profile NAME] [--show-cursor|--hide-cursor] [--format png|svg] --out shot.png [--json]'],
  description: `Plays the tape up to a marker (after it) or a time in seconds (default: the
end) and renders that screen to a PNG with Chromium, xterm.js and the pinned
font. The cursor follows the program unless --show-cursor/--hide-cursor.
--format svg writes an SVG instead: real text placed cell by cell, with the
glyphs it uses of the pinned fonts embedded (no browser needed).
Profiles: ${profileNames().join(', ')} (aliases dark, light; default reference-dark, or AGENT_TTY_PROFILE / TAPEDECK_PROFILE).
Chromium: /usr/bin/chromium unless TAPEDECK_CHROMIUM names another binary.`,
  options: {
    at: { type: 'string', arg: 'POS', help: 'a marker name, #N (the N-th marker) or a number of seconds (default: the end)' },
    profile: { type: 'string', arg: 'NAME', help: 'render profile (colours, font size)' },
    'hide-cursor': { type: 'boolean', help: 'never draw the cursor' },
    'show-cursor': { type: 'boolean', help: 'always draw the cursor' },
    format: { type: 'string', arg: 'png|svg', help: 'png (default) or svg' },
    out: { type: 'string', short: 'o', arg: 'FILE.png', path: true, help: 'where to write the PNG (required)' },
    json: { type: 'boolean', help: 'one JSON result envelope on stdout (an error envelope on failure)' },
  },
  positionals: { min: 1, max: 1, message: 'expected exactly one FILE.cast' },
  pathPositionals: true,
  async run({ values, positionals, io }) {
    if (!values.out) throw usageError('screenshot: --out FILE.png is required');
    if (values['hide-cursor'] && values['show-cursor']) throw usageError('screenshot: --hide-cursor and --show-cursor exclude each other');
    const cursor = values['hide-cursor'] ? 'hide' : values['show-cursor'] ? 'show' : 'auto';
    const format = values.format ?? 'png';
    if (format !== 'png' && format !== 'svg') throw usageError(`screenshot: --format must be png or svg, got ${JSON.stringify(format)}`);
    if (format === 'svg') {
      const { writeSvgOfCast } = await import('../../render/svg/write.js');
      const svg = await writeSvgOfCast(positionals[0], parsePosition(values.at), values.out, { profile: values.profile, cursor });
      if (values.json) io.stdout.write(`${JSON.stringify(resultEnvelope('screenshot', { file: positionals[0], at: values.at ?? null, format, ...svg }))}\n`);
      else io.stdout.write(`Screenshot saved: ${relative(io.cwd, svg.artifactPath)} (${svg.pixelWidth}x${svg.pixelHeight} px SVG, ${svg.profileName})\n`);
      return 0;
    }
    const shot = await screenshotCast(positionals[0], parsePosition(values.at), { profile: values.profile, cursor, out: values.out });
    if (values.json) {
      io.stdout.write(`${jsonForTerminal(resultEnvelope('screenshot', { file: positionals[0], at: values.at ?? null, ...screenshotFields(shot) }))}\n`);
    } else {
      io.stdout.write(`Screenshot saved: ${relative(io.cwd, shot.artifactPath ?? values.out)} (${shot.pixelWidth}x${shot.pixelHeight} px, ${shot.profileName})\n`);
    }
    return 0;
  },
  // --json is a promise of JSON on stdout, failures included (a bad flag too).
  onError(err, argv, io) {
    if (!argv.includes('--json')) return;
    if (err instanceof TapedeckError) {
      const details = { ...(err.details ?? {}), ...(err.location ? { location: err.location } : {}) };
      io.stdout.write(`${jsonForTerminal(errorEnvelope('screenshot', { code: err.code, message: err.describe(), details }))}\n`);
    } else {
      io.stdout.write(`${jsonForTerminal(errorEnvelope('screenshot', { code: 'INTERNAL_ERROR', message: `internal error: ${(err as Error)?.message ?? String(err)}` }))}\n`);
    }
  },
});
