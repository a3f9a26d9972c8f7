import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tapedeck, useTempDirs, tapedeckInProcess } from '../helpers/cli.js';

/**
 * tapedeck's own commands speak seed 002's names where they name the same
 * thing, and keep their earlier names as aliases.
 */
const CAST = join(ROOT, 'goldens/terminal/bash-echo.cast');
const temp = useTempDirs();

describe('seed 002 names in tapedeck commands', () => {
  it('snapshot --format structured (json is an alias)', async () => {
    const structured = await tapedeckInProcess(['snapshot', CAST, '--format', 'structured']);
    const json = await tapedeckInProcess(['snapshot', CAST, '--format', 'json']);
    expect(structured.code).toBe(0);
    const a = JSON.parse(structured.stdout);
    const b = JSON.parse(json.stdout);
    expect(a).toMatchObject({ ok: true, command: 'snapshot', result: { visibleLines: expect.any(Array), cursor: expect.any(Object) } });
    expect(a.result).toEqual(b.result);
    const bad = await tapedeckInProcess(['snapshot', CAST, '--format', 'cells']);
    expect([bad.code, bad.stderr]).toEqual([2, 'tapedeck: snapshot: --format expects text or structured (alias json), got "cells"\n']);
  });

  it('export --format asciicast writes asciicast v3', async () => {
    const dir = temp();
    const out = join(dir, 'out.cast');
    const r = await tapedeckInProcess(['export', CAST, '--format', 'asciicast', '--out', out, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8').split('\n')[0]).version).toBe(3);
    const v3 = join(dir, 'v3.cast');
    await tapedeckInProcess(['export', CAST, '--format', 'v3', '--out', v3]);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(v3, 'utf8'));
  });

  it('version --json has the seed fields (and the old ones)', async () => {
    const r = await tapedeck(['version', '--json']);
    const { result } = JSON.parse(r.stdout);
    expect(result).toEqual({
      cliVersion: result.version,
      protocolVersion: '1.0.0',
      rendererBackends: ['tapedeck-raster'],
      runtime: { node: process.version, platform: process.platform, arch: process.arch },
      version: expect.any(String),
      node: process.version,
    });
  });

  it('render profiles are reference-dark/reference-light, with dark/light as aliases', async () => {
    const { resolveProfile, profileNames, PROFILES } = await import('../../src/render/profiles.js');
    expect(PROFILES.dark).toBe(PROFILES['reference-dark']);
    expect(profileNames()).toEqual(['reference-dark', 'reference-light']);
    expect(resolveProfile('dark')).toBe(resolveProfile('reference-dark'));
    expect(resolveProfile('light').name).toBe('reference-light');
    expect(() => resolveProfile('sepia')).toThrow(/unknown render profile "sepia"/);
  });

  it('the renderer backend agent-tty reports is the one screenshots are drawn with', async () => {
    const { RASTER_RENDERER } = await import('../../src/render/raster/index.js');
    const { RENDERER_BACKENDS } = await import('../../src/cli/commands/version.js');
    expect(RENDERER_BACKENDS).toEqual([RASTER_RENDERER]);
  });
});
