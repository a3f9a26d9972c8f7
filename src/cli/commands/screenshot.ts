import { relative } from 'node:path';
import { parseOptions } from '../args.js';
import { TapedeckError, usageError } from '../../core/errors.js';
import { errorEnvelope, resultEnvelope } from '../../core/envelope.js';
import { closeRenderer } from '../../render/renderer.js';
import { screenshotCast } from '../../render/screenshot-cast.js';
import { screenshotFields } from '../../render/screenshot.js';
import { profileNames } from '../../render/profiles.js';
import { parsePosition } from './snapshot.js';

const HELP = `usage: tapedeck screenshot FILE.cast [--at MARKER|#N|SECONDS] [--profile NAME] [--show-cursor|--hide-cursor] --out shot.png [--json]

Plays the tape up to a marker (after it) or a time in seconds (default: the
end) and renders that screen to a PNG with Chromium, xterm.js and the pinned
font. The cursor follows the program unless --show-cursor/--hide-cursor.
Profiles: ${profileNames().join(', ')} (aliases dark, light; default reference-dark, or AGENT_TTY_PROFILE / TAPEDECK_PROFILE).
Chromium: /usr/bin/chromium unless TAPEDECK_CHROMIUM names another binary.`;

export async function run(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  try {
    return await screenshot(argv, json);
  } catch (err) {
    if (json && err instanceof TapedeckError) {
      const details = { ...(err.details ?? {}), ...(err.location ? { location: err.location } : {}) };
      process.stdout.write(`${JSON.stringify(errorEnvelope('screenshot', { code: err.code, message: err.describe(), details }))}\n`);
    } else if (json) {
      process.stdout.write(`${JSON.stringify(errorEnvelope('screenshot', { code: 'INTERNAL_ERROR', message: `internal error: ${(err as Error)?.message ?? String(err)}` }))}\n`);
    }
    throw err;
  } finally {
    await closeRenderer();
  }
}

async function screenshot(argv: string[], json: boolean): Promise<number> {
  const { values, positionals } = parseOptions('screenshot', argv, {
    at: { type: 'string' },
    profile: { type: 'string' },
    'hide-cursor': { type: 'boolean' },
    'show-cursor': { type: 'boolean' },
    out: { type: 'string', short: 'o' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw usageError('screenshot: expected exactly one FILE.cast');
  if (!values.out) throw usageError('screenshot: --out FILE.png is required');
  if (values['hide-cursor'] && values['show-cursor']) throw usageError('screenshot: --hide-cursor and --show-cursor exclude each other');
  const cursor = values['hide-cursor'] ? 'hide' : values['show-cursor'] ? 'show' : 'auto';
  const shot = await screenshotCast(positionals[0], parsePosition(values.at), { profile: values.profile, cursor, out: values.out });
  if (json) {
    process.stdout.write(`${JSON.stringify(resultEnvelope('screenshot', { file: positionals[0], at: values.at ?? null, ...screenshotFields(shot) }))}\n`);
  } else {
    process.stdout.write(`Screenshot saved: ${relative(process.cwd(), shot.artifactPath ?? values.out)} (${shot.pixelWidth}x${shot.pixelHeight} px, ${shot.profileName})\n`);
  }
  return 0;
}
