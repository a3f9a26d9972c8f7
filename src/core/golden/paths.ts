import { isAbsolute, relative, resolve, sep } from 'node:path';
import { lazyPackage } from '../lazy-package.js';

// Only a hashed name needs node:crypto (a few ms at start-up).
const crypto = lazyPackage<typeof import('node:crypto')>('node:crypto');

/**
 * Every path of a golden, derived in one place: the golden, its review
 * candidate (`.new`), and for PNGs the images a mismatch leaves beside it.
 */
export interface GoldenPaths {
  golden: string;
  candidate: string;
  actualImage: string;
  diffImage: string;
}

export function goldenPaths(golden: string): GoldenPaths {
  const stem = golden.replace(/\.png$/i, '');
  return { golden, candidate: `${golden}.new`, actualImage: `${stem}.actual.png`, diffImage: `${stem}.diff.png` };
}

/** Files a matcher or replay leaves beside a golden, which are never goldens themselves. */
export const ARTIFACT_SUFFIX = /\.(new|actual\.png|diff\.png)$/;

/** Characters kept as they are: letters, digits and marks of any script, and punctuation every file system accepts. */
const KEEP = /^[\p{L}\p{N}\p{M}_.,+=@()[\]'!&]$/u;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i;
/** Leaves room for a counter, a hash and the extension within the usual 255-byte name limit. */
const MAX_NAME_BYTES = 160;

/** No leading dot or dash, no artifact-like ending, no reserved Windows name, within the length limit. */
function isPortable(safe: string): boolean {
  return (
    !/^[-.]|-$/.test(safe) &&
    !/\.(actual|diff|new)$/i.test(safe) && // would look like an artifact of another golden
    !WINDOWS_RESERVED.test(safe) &&
    Buffer.byteLength(safe) <= MAX_NAME_BYTES
  );
}

/** The reading of a safe name back into a test name: `__` was ` > ` (describe blocks), `-` was a space. */
function decode(safe: string): string {
  return safe.replace(/__/g, ' > ').replace(/-/g, ' ');
}

export function shortHash(text: string): string {
  return crypto().createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 8);
}

/**
 * A test (or marker) name as one file name, readable and unique: Unicode
 * letters stay, spaces become `-`, describe separators `__`. When that
 * mapping cannot be read back to exactly the same name (a `-` or `:` in it,
 * other punctuation, a name too long, one ending like a counter or an
 * artifact), the readable part gets `-` and 8 hex digits of the full name's
 * SHA-256, so two names never share a file.
 */
export function safeName(name: string, options: { chosen?: boolean } = {}): string {
  // A name the user chose (`{ name: 'main-menu' }`) is used as it is when it is already a safe file name;
  // a collision with another golden of the file is still caught when the golden is taken.
  if (options.chosen && /^[\p{L}\p{N}\p{M}_.,+=@()[\]'!&-]+$/u.test(name) && isPortable(name)) return name;
  let safe = '';
  for (const ch of name.replace(/ > /g, '\u0000')) safe += ch === '\u0000' ? '__' : ch === ' ' ? '-' : KEEP.test(ch) ? ch : '-';
  const lossless =
    safe !== '' &&
    decode(safe) === name &&
    name === name.normalize('NFC') &&
    !/-(\d+|[0-9a-f]{8})$/.test(safe) && // reads like a counter or a hash suffix
    isPortable(safe);
  if (lossless) return safe;
  let readable = safe.replace(/-{2,}/g, '-').replace(/^[-.]+|-+$/g, '');
  while (Buffer.byteLength(readable) > MAX_NAME_BYTES) readable = [...readable].slice(0, -1).join('');
  return `${readable.replace(/-+$/, '') || 'unnamed'}-${shortHash(name)}`;
}

/** @deprecated kept for callers of the old name: use safeName. */
export const fileSafe = safeName;

/**
 * The folder of one test file's goldens: `<root>/<test file relative to the
 * project root>/`, the file name whole (`ui.test.ts` and `ui.spec.ts`, `a b`
 * and `a-b` are different folders, as they are different files). A test file
 * outside the project gets a folder named by a hash of its absolute path.
 */
export function goldenFolder(root: string, projectRoot: string, testFile: string): string {
  const rel = relative(projectRoot, resolve(projectRoot, testFile));
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return resolve(root, `_outside-${shortHash(resolve(testFile))}`);
  return resolve(root, ...rel.split(sep));
}

/** goldens/<test file>/<test name>[-N].<ext>: the counter N (from 2) tells apart several goldens of one test. */
export function goldenFile(folder: string, testName: string, ext: string, counter: number, chosen = false): string {
  return resolve(folder, `${safeName(testName, { chosen })}${counter > 1 ? `-${counter}` : ''}.${ext}`);
}

/** TAPEDECK_GOLDENS wins over the config file's "goldens" (seed 002 §3: environment above the file). */
export function defaultGoldenRoot(projectRoot: string, configured?: string, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(projectRoot, env.TAPEDECK_GOLDENS ?? configured ?? 'goldens');
}
