/** Values of VHS tapes: Go durations as VHS writes them (`500ms`, `2s`, `1.5m`), and Go (RE2) regexes as JS ones. */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** `<number><ms|s|m>` in milliseconds, or undefined when it is not a duration. */
export function durationMs(number: string, unit: string): number | undefined {
  if (!/^(\d+\.?\d*|\.\d+)$/.test(number) || UNIT_MS[unit] === undefined) return undefined;
  return Number(number) * UNIT_MS[unit];
}

/** Formats milliseconds the way Go prints a time.Duration (for messages). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${+ms.toFixed(3)}ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(3)}s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m${+((ms - m * 60_000) / 1000).toFixed(3)}s`;
}

let linearEngine: boolean | undefined;

/**
 * V8's linear-time regex engine (the `l` flag) matches in time linear in the
 * input, as Go's RE2 does, so a pattern that backtracks catastrophically in a
 * backtracking engine stays bounded. It accepts about what RE2 accepts (no
 * backreferences, no lookaround). Switched on once, on first use.
 */
function enableLinear(): boolean {
  if (linearEngine !== undefined) return linearEngine;
  try {
    const load = (process as unknown as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
    const v8 = load?.('node:v8') as typeof import('node:v8') | undefined;
    v8?.setFlagsFromString('--enable-experimental-regexp-engine');
    new RegExp('a', 'l');
    linearEngine = true;
  } catch {
    linearEngine = false;
  }
  return linearEngine;
}

const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', ascii: '\\x00-\\x7F', blank: '\\t ', cntrl: '\\x00-\\x1F\\x7F', digit: '0-9',
  graph: '!-~', lower: 'a-z', print: ' -~', punct: '!-\\/:-@\\[-`{-~', space: '\\t\\n\\v\\f\\r ', upper: 'A-Z',
  word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f',
};

/**
 * Compiles a Go regexp (RE2 syntax) as a JS RegExp: leading (?flags), (?P<name>),
 * \A, \z and [[:class:]] translated. Throws a message (no stack) when it cannot.
 */
export function compileGoRegex(source: string): RegExp {
  let src = source;
  let flags = '';
  const lead = /^\(\?([imsU]+)\)/.exec(src);
  if (lead) {
    if (lead[1].includes('U')) throw new Error('the U (ungreedy) flag is not supported');
    flags = [...new Set(lead[1])].join('');
    src = src.slice(lead[0].length);
  }
  src = src
    .replace(/\(\?P</g, '(?<')
    .replace(/\\A/g, '^')
    .replace(/\\z/g, '$')
    .replace(/\[:(\^?)(\w+):\]/g, (all, neg: string, name: string) => {
      if (!POSIX[name]) return all;
      if (neg) throw new Error(`negated class [:^${name}:] is not supported`);
      return POSIX[name];
    });
  const linear = enableLinear();
  try {
    return new RegExp(src, flags + (linear ? 'l' : ''));
  } catch (err) {
    const msg = (err as Error).message.replace(/^Invalid regular expression: /, '');
    throw new Error(/linear time/.test(msg) ? 'backreferences and lookaround are not RE2 syntax' : msg);
  }
}
