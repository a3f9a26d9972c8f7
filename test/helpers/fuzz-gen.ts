/**
 * A seeded generator of malformed protocol tapes and casts for test/reliability/fuzz.test.ts.
 * Every case is a function of (seed, index), so a failure names the case to rerun.
 */
export type Rng = () => number;

/** mulberry32: small, fast, good enough to spread cases. */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const int = (r: Rng, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Rng, items: readonly T[]): T => items[Math.floor(r() * items.length)];

/** Text a hostile tape would carry: controls, escape sequences, workflow commands, odd Unicode. */
const NASTY = [
  '\x1b]52;c;cGF5bG9hZA==\x07', '\x1b]0;pwned\x07', '\x1b[2J', '\x1b[999999999b', 'A\x1b[99999', '\u009b31m', '\u009d0;t\u009c',
  '\n::error file=x::boom', '::warning::w', '\r', '\x00', '\x7f', '\u2028', '\ud800', '\uffff', 'é', '漢字', '🎉', '\u0301'.repeat(40),
  '{{tapedeck.env.FUZZ_SECRET}}', '{{tapedeck.env.FUZZ_UNSET}}', 's3cr3t/value', '"', '\\', '%0A', '<script>',
];

export function nastyString(r: Rng): string {
  let s = '';
  const n = int(r, 0, 6);
  for (let i = 0; i < n; i++) s += r() < 0.5 ? pick(r, NASTY) : String.fromCharCode(int(r, 0, 0x2ff));
  return s;
}

function nested(r: Rng, depth: number): string {
  return `${'['.repeat(depth)}${JSON.stringify(nastyString(r))}${']'.repeat(depth)}`;
}

function jsonValue(r: Rng, depth = 0): unknown {
  const k = depth > 3 ? int(r, 0, 3) : int(r, 0, 6);
  if (k === 0) return nastyString(r);
  if (k === 1) return pick(r, [0, -1, 1e308, 2 ** 53 + 1, 0.1, null, true]);
  if (k === 2) return pick(r, [null, false, '']);
  if (k === 3) return r() < 0.5 ? 'ok' : int(r, 0, 1000);
  if (k === 4) return Array.from({ length: int(r, 0, 3) }, () => jsonValue(r, depth + 1));
  return Object.fromEntries(Array.from({ length: int(r, 0, 3) }, () => [nastyString(r) || 'k', jsonValue(r, depth + 1)]));
}

/** A protocol tape: mostly well-formed JSON-RPC pairs, then bent by a few mutations. */
export function protocolTape(r: Rng): Buffer {
  const lines: string[] = [];
  const pairs = int(r, 1, 5);
  for (let id = 1; id <= pairs; id++) {
    const method = r() < 0.8 ? 'echo' : nastyString(r);
    const params = r() < 0.1 ? JSON.parse(nested(r, int(r, 100, 700))) : jsonValue(r);
    const request = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    let response = `${JSON.stringify({ jsonrpc: '2.0', id, result: r() < 0.7 ? params : jsonValue(r) })}\n`;
    if (r() < 0.15) response += `${pick(r, ['debug line\n', '{"jsonrpc":"2.0","method":"note","params":{}}\n', nastyString(r) + '\n'])}`;
    if (r() < 0.05) response = `{"jsonrpc":"2.0","id":${id},"result":${nested(r, int(r, 400, 3000))}}\n`;
    const obj: Record<string, unknown> = { request, response };
    if (r() < 0.05) obj.response_base64 = pick(r, ['!!!', '', Buffer.from(response).toString('base64'), 3]);
    lines.push(JSON.stringify(obj));
  }
  return mutate(r, Buffer.from(`${lines.join('\n')}\n`));
}

/** A cast of any version: a header, then events, some of them wrong. */
export function castTape(r: Rng): Buffer {
  const version = r() < 0.9 ? pick(r, [1, 2, 3, 3]) : pick<unknown>(r, ['x', 4, null]);
  const size = () => (r() < 0.85 ? int(r, 1, 200) : pick<unknown>(r, [0, -3, 10000, 10001, 2000, 'wide', 1.5]));
  const cols = size();
  const rows = size();
  const argv = r() < 0.3 ? { tapedeck: { argv: ['sh', '-c', 'touch /tmp/tapedeck-fuzz-pwned'] } } : {};
  if (version === 1) {
    const stdout = Array.from({ length: int(r, 0, 6) }, () => (r() < 0.9 ? [pick(r, [0.1, 0, -1, 1e308]), output(r)] : jsonValue(r)));
    return mutate(r, Buffer.from(JSON.stringify({ version: 1, width: cols, height: rows, stdout, ...argv })));
  }
  const header = version === 3 ? { version, term: { cols, rows }, ...argv } : { version, width: cols, height: rows, ...argv };
  const lines = [JSON.stringify(header)];
  let t = 0;
  for (let i = int(r, 0, 14); i > 0; i--) {
    const stamp = r() < 0.97 ? (t += r() * 0.5) : pick<unknown>(r, [-1, 1e308, 'soon', null, 1e9 + 1]);
    const code = r() < 0.97 ? pick(r, ['o', 'o', 'o', 'o', 'i', 'm', 'm', 'r', 'x']) : pick<unknown>(r, ['tapedeck.bytes', 'z', '', 7]);
    const data =
      code === 'r' ? (r() < 0.6 ? `${int(r, 1, 300)}x${int(r, 1, 100)}` : r() < 0.5 ? `${int(r, 1, 4)}x${int(r, 1, 6)}` : pick<unknown>(r, ['10000x10000', '1000x1000', '0x5', 'wide']))
      : code === 'x' ? pick<unknown>(r, ['0', '1', '0', 3, 'boom'])
      : code === 'tapedeck.bytes' ? pick(r, ['G0lN', '!!', ''])
      : output(r);
    lines.push(r() < 0.98 ? JSON.stringify([stamp, code, data]) : JSON.stringify(jsonValue(r)));
  }
  return mutate(r, Buffer.from(`${lines.join('\n')}\n`));
}

function output(r: Rng): string {
  if (r() < 0.05) return `A\x1b[${pick(r, ['999999999', '65535', '4000000'])}b`;
  if (r() < 0.03) return 'e' + '\u0301'.repeat(int(r, 100, 20000));
  if (r() < 0.03) return `\x1b[${int(r, 1, 9999)};${int(r, 1, 9999)}H${'x'.repeat(int(r, 1, 2000))}`;
  // Counts xterm.js repeats unit by unit (SU, SD, IL, DL, CHT, CBT), and ED 1 / DECSED 1 in the bottom-right cell.
  if (r() < 0.05) return `\x1b[${pick(r, ['2147483647', '9999999', '65535'])}${pick(r, ['S', 'T', 'L', 'M', 'I', 'Z'])}`;
  if (r() < 0.03) return `\x1b[99;99H${pick(r, ['\x1b[1J', '\x1b[?1J'])}`;
  // Tiny screens (the resizes above) with wide characters and the alternate screen: where xterm.js's reflow broke.
  if (r() < 0.05) return pick(r, ['\x1b[?1049h', '\x1b[?1049l', '中文😀xx\r\n', '\x1bE\x1b[?6l', 'é\u0301\n']);
  return nastyString(r) + pick(r, ['hello\r\n', '\x1b[1;31mred\x1b[0m', '$ ', '']);
}

/** Byte-level damage: cuts, flips, inserts, duplicated or garbage lines, a BOM, CRLF. */
export function mutate(r: Rng, input: Buffer): Buffer {
  let buf = input;
  const times = r() < 0.6 ? 0 : int(r, 1, 2);
  for (let i = 0; i < times; i++) {
    const at = int(r, 0, Math.max(0, buf.length - 1));
    switch (int(r, 0, 7)) {
      case 0: buf = buf.subarray(0, at); break;
      case 1: buf = Buffer.concat([buf.subarray(0, at), Buffer.from([pick(r, [0x00, 0x1b, 0x9b, 0xff, 0x0a, 0x22, 0x7b, 0x5d, 0xc2, 0x5c])]), buf.subarray(at)]); break;
      case 2: buf = Buffer.concat([buf.subarray(0, at), buf.subarray(at + 1)]); break;
      case 3: buf = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), buf]); break;
      case 4: buf = Buffer.from(buf.toString('latin1').replace(/\n/g, '\r\n'), 'latin1'); break;
      case 5: buf = Buffer.concat([buf, Buffer.from(`${JSON.stringify(jsonValue(r))}\n`)]); break;
      case 6: buf = Buffer.concat([buf, Buffer.from('\n\n   \n')]); break;
      default: {
        const lines = buf.toString('latin1').split('\n');
        const j = int(r, 0, lines.length - 1);
        lines.splice(j, 0, lines[j]);
        buf = Buffer.from(lines.join('\n'), 'latin1');
      }
    }
  }
  return buf;
}

/** A tapedeck.config.json: the known keys with right (mostly), wrong and hostile values, then bent bytes. */
export function configText(r: Rng): Buffer {
  const keys: Record<string, [unknown[], unknown[]]> = {
    ignore: [[['$..id'], [], ['$.result.x']], ['$[bad', 'x', [3], [nastyString(r)]]],
    filter: [[[{ pattern: '\\d+', replacement: 'N' }], []], [[{ pattern: '(' }], [{}], 'x', [{ pattern: nastyString(r) }]]],
    timeoutMs: [[1000, 50], [-1, 0, 1e308, '5', 2 ** 31, null]],
    boundary: [['auto', 'line', 'idle:50', 'jsonrpc'], ['nope', 'idle:-1', 7]],
    goldens: [['goldens', 'tapes/x', '.'], ['/', '../out', '/etc', '', 'a/../../b', 3, null]],
    mask: [[['\\d+'], [{ row: 0, col: 0, width: 3, height: 1 }]], [[{ row: -1 }], ['['], 'x']],
    ignoreKeyOrder: [[true, false], ['yes', null]],
    maxResponseBytes: [[1024, 65536], [0, -5, 1e308, '1k']],
  };
  const obj: Record<string, unknown> = {};
  for (const [k, [good, bad]] of Object.entries(keys)) if (r() < 0.4) obj[k] = r() < 0.93 ? pick(r, good) : pick(r, bad);
  if (r() < 0.03) obj[nastyString(r) || 'unknown'] = jsonValue(r);
  const text = r() < 0.95 ? JSON.stringify(obj, null, r() < 0.5 ? 2 : 0) : pick(r, ['[]', '"x"', '', '{', '{"a":1,}', '// c\n{}', nested(r, int(r, 10, 3000))]);
  return mutate(r, Buffer.from(`${text}\n`));
}

/** Lines for `fix --apply --from-stdin`: envelopes right and wrong (a null fix, bad spans, diffs that do not apply). */
export function envelopeLines(r: Rng, file: string): Buffer {
  const lines: string[] = [];
  for (let i = int(r, 1, 4); i > 0; i--) {
    const diff = pick(r, [`--- a/${file}\n+++ b/${file}\n@@ -1,1 +1,1 @@\n-old\n+new\n`, '', 'not a diff', `@@ -9,2 +9,2 @@\n-x\n+y\n`, nastyString(r)]);
    const fix = pick<unknown>(r, [
      { kind: 'k', confidence: 1, alternatives: [{ label: 'l', diff, rationale: 'r', confidence: r() }] },
      null, 3, 'x', [], { alternatives: null }, { alternatives: [null] }, { alternatives: [{ diff, confidence: 2, label: 'l' }] }, undefined,
    ]);
    const span = pick<unknown>(r, [{ file, line: 1, col: 1, len: 1, byte_start: 0, byte_end: 1 }, { file }, { line: 'x' }, [], 'span', { file: 3, line: 1 }]);
    const env: Record<string, unknown> = { schema_version: pick<unknown>(r, ['1.0', '1.1', '2.0', 1, undefined]), code: pick<unknown>(r, ['TD1001', 'X1', 7]), severity: 'error', span, title: nastyString(r), prose: 'p' };
    if (fix !== undefined) env.fix = fix;
    lines.push(r() < 0.95 ? JSON.stringify(env) : pick(r, ['{', nastyString(r), '[]', 'null']));
  }
  return mutate(r, Buffer.from(`${lines.join('\n')}\n`));
}
