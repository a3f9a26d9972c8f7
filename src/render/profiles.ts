import { ANSI_16 } from '../session/screen/colors.js';
import type { CastTheme } from '../tape/asciicast/events.js';
import { TapedeckError } from '../core/diagnostics/errors.js';
import { lazyPackage } from '../core/lazy-package.js';
import { PROFILE_NAMES, type ProfileName } from './profile-names.js';

// Replay's help lists the names from profile-names.ts; only a screenshot hashes a profile (node:crypto).
const crypto = lazyPackage<typeof import('node:crypto')>('node:crypto');

/**
 * Render profiles: everything besides the screen itself that decides a
 * screenshot's pixels. Two screenshots are comparable only when their
 * profile hashes are equal.
 */
export interface RenderTheme {
  background: string;
  foreground: string;
  cursor: string;
  cursorAccent: string;
  /** The 16 ANSI colours, black..white then brightBlack..brightWhite. */
  ansi: readonly string[];
}

export interface RenderProfile {
  name: string;
  theme: RenderTheme;
  /** CSS font-family list; every family is loaded from npm packages (see browser/fonts.ts). */
  fontFamily: string;
  fontSize: number;
  /** Multiplier of the font's natural line height (1 keeps box drawing joined). */
  lineHeight: number;
  /** Pixels around the cell grid, in the background colour. */
  padding: number;
}

/** The families the page loads; the order is the fallback order per glyph. */
export const FONT_FAMILY = '"DejaVu Sans Mono", "Noto Emoji", "Noto Sans SC"';

// xterm.js's default palette: the same RGB the text snapshots report (screen/colors.ts).
const XTERM_ANSI = ANSI_16;

// A light palette whose yellows and whites stay readable on white.
const LIGHT_ANSI = [
  '#000000', '#cd3131', '#00bc00', '#949800', '#0451a5', '#bc05bc', '#0598bc', '#555555',
  '#666666', '#cd3131', '#14ce14', '#b5ba00', '#0451a5', '#bc05bc', '#0598bc', '#a5a5a5',
];

const BUILT_IN = {
  'reference-dark': {
    name: 'reference-dark',
    theme: { background: '#000000', foreground: '#e5e5e5', cursor: '#e5e5e5', cursorAccent: '#000000', ansi: XTERM_ANSI },
    fontFamily: FONT_FAMILY,
    fontSize: 15,
    lineHeight: 1,
    padding: 8,
  },
  'reference-light': {
    name: 'reference-light',
    theme: { background: '#ffffff', foreground: '#1f1f1f', cursor: '#1f1f1f', cursorAccent: '#ffffff', ansi: LIGHT_ANSI },
    fontFamily: FONT_FAMILY,
    fontSize: 15,
    lineHeight: 1,
    padding: 8,
  },
} satisfies Record<ProfileName, RenderProfile>;

export const PROFILES: Readonly<Record<string, RenderProfile>> = BUILT_IN;

export const DEFAULT_PROFILE: ProfileName = 'reference-dark';

/** tapedeck's earlier names, kept working (seed 002 names the profiles reference-dark/reference-light). */
export const PROFILE_ALIASES: Readonly<Record<string, string>> = { dark: 'reference-dark', light: 'reference-light' };

export function profileNames(): string[] {
  return [...PROFILE_NAMES];
}

// The old names stay readable as PROFILES.dark / PROFILES.light (not enumerable: profileNames() lists the seed names).
for (const [alias, name] of Object.entries(PROFILE_ALIASES)) Object.defineProperty(PROFILES, alias, { value: PROFILES[name], enumerable: false });

/** The canonical name of a profile name or alias; unknown names are usage errors. */
export function canonicalProfile(name: string): string {
  return resolveProfile(name).name;
}

/** A built-in profile by name, or the profile object given. Unknown names are usage errors. */
export function resolveProfile(profile: string | RenderProfile | undefined): RenderProfile {
  if (profile === undefined) {
    const variable = process.env.AGENT_TTY_PROFILE ? 'AGENT_TTY_PROFILE' : process.env.TAPEDECK_PROFILE ? 'TAPEDECK_PROFILE' : undefined;
    if (!variable) return PROFILES[DEFAULT_PROFILE];
    // A profile named in the environment is as much the user's choice as --profile: a wrong one is bad input, not ignored.
    const named = process.env[variable]!;
    const found = PROFILES[PROFILE_ALIASES[named] ?? named];
    if (!found) {
      throw new TapedeckError('INVALID_RENDER_PROFILE', `unknown render profile ${JSON.stringify(named)} in ${variable} (known: ${profileNames().join(', ')}; aliases: ${Object.keys(PROFILE_ALIASES).join(', ')})`, {
        details: { profile: named, variable, known: profileNames() },
      });
    }
    return found;
  }
  if (typeof profile !== 'string') return profile;
  const found = PROFILES[PROFILE_ALIASES[profile] ?? profile];
  if (!found) {
    throw new TapedeckError('INVALID_RENDER_PROFILE', `unknown render profile ${JSON.stringify(profile)} (known: ${profileNames().join(', ')}; aliases: ${Object.keys(PROFILE_ALIASES).join(', ')})`, {
      details: { profile, known: profileNames() },
    });
  }
  return found;
}

/**
 * sha256 over the profile and the versions of everything that draws (renderer
 * backend, xterm.js, fonts, Chromium): a golden taken under another hash may
 * differ for reasons other than the screen.
 */
export function renderProfileHash(profile: RenderProfile, engine: Record<string, string>): string {
  return crypto().createHash('sha256').update(canonicalJson({ profile, engine })).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * A profile drawn in a cast's own colours (asciicast term.theme): background,
 * text and the palette (8 colours are repeated as the bright ones, as
 * asciinema-player does); fonts and sizes stay the profile's.
 */
export function withCastTheme(profile: RenderProfile, theme: CastTheme): RenderProfile {
  const palette = theme.palette.split(':');
  const ansi = palette.length === 8 ? [...palette, ...palette] : palette;
  return {
    ...profile,
    name: `${profile.name}+cast-theme`,
    theme: { background: theme.bg, foreground: theme.fg, cursor: theme.fg, cursorAccent: theme.bg, ansi },
  };
}

/** The profile for a cast: an explicit choice as given, else the default in the cast's theme when it has one. */
export function profileForCast(profile: string | RenderProfile | undefined, theme: CastTheme | undefined): RenderProfile {
  const base = resolveProfile(profile);
  return profile === undefined && theme ? withCastTheme(base, theme) : base;
}
