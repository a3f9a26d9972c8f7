/**
 * The built-in render profiles' names, in the order they are listed (profiles.ts defines each, and its
 * types make the two agree): the CLI's help lists them without loading the profiles and their palettes.
 */
export const PROFILE_NAMES = ['reference-dark', 'reference-light'] as const;

export type ProfileName = (typeof PROFILE_NAMES)[number];
