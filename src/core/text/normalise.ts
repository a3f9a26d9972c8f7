import { tooDeep } from '../config/limits.js';
import type { Node as JsonNode } from 'jsonc-parser';
import { lazyPackage } from '../lazy-package.js';

const jsonpath = lazyPackage<typeof import('jsonpath-plus')>('jsonpath-plus');
const jsonc = lazyPackage<typeof import('jsonc-parser')>('jsonc-parser');
import { usageError } from '../diagnostics/errors.js';

/**
 * Normalisers for volatile values, applied to both sides of a comparison and
 * never to what is stored. Filters rewrite raw text; JSONPath ignores replace a
 * JSON value in place with IGNORED, splicing the original text so every other
 * byte (whitespace, key order, escapes) still compares exactly.
 */
export const IGNORED = '"<ignored>"';

export interface TextFilter {
  pattern: RegExp;
  replacement: string;
  /** As the user wrote it, for messages. */
  source: string;
}

export interface NormaliseRules {
  ignore?: readonly string[];
  filters?: readonly TextFilter[];
  /** Compare JSON objects whatever the order of their keys. */
  ignoreKeyOrder?: boolean;
  /** Rules that apply only to the pairs whose request matches their scope. */
  scoped?: readonly ScopedRules[];
}

/**
 * Which requests a scoped rule applies to: a JSON-RPC method, an MCP tool
 * (`tools/call` with that `params.name`), a seed-000 op. Every key given must match.
 */
export interface NormaliseScope {
  method?: string;
  tool?: string;
  op?: string;
}

export interface ScopedRules {
  scope: NormaliseScope;
  ignore?: readonly string[];
  filters?: readonly TextFilter[];
  ignoreKeyOrder?: boolean;
}

function requestFacts(request: string): NormaliseScope {
  try {
    const v = JSON.parse(request) as Record<string, unknown>;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    const params = v.params as Record<string, unknown> | undefined;
    return {
      method: typeof v.method === 'string' ? v.method : undefined,
      tool: v.method === 'tools/call' && params && typeof params.name === 'string' ? params.name : undefined,
      op: typeof v.op === 'string' ? v.op : undefined,
    };
  } catch {
    return {};
  }
}

function inScope(scope: NormaliseScope, facts: NormaliseScope): boolean {
  return (['method', 'tool', 'op'] as const).every((k) => scope[k] === undefined || scope[k] === facts[k]);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
  return out;
}

/** Parses `REGEX=REPLACEMENT`: the first unescaped `=` splits (write `\=` for a literal `=` in the regex). */
export function parseFilter(spec: string): TextFilter {
  let split = -1;
  for (let i = 0; i < spec.length; i++) {
    if (spec[i] === '=' && spec[i - 1] !== '\\') {
      split = i;
      break;
    }
  }
  if (split <= 0) throw usageError(`--filter expects REGEX=REPLACEMENT, got ${JSON.stringify(spec)}`);
  const source = spec.slice(0, split).replace(/\\=/g, '=');
  const replacement = spec.slice(split + 1);
  return { pattern: compileRegex(source, '--filter'), replacement, source };
}

export function compileRegex(source: string, what: string): RegExp {
  try {
    return new RegExp(source, 'g');
  } catch (err) {
    throw usageError(`${what}: invalid regular expression ${JSON.stringify(source)}: ${(err as Error).message}`);
  }
}

export function validateJsonPath(path: string): string {
  let depth = 0;
  for (const ch of path) {
    if (ch === '[') depth++;
    if (ch === ']') depth--;
    if (depth < 0) break;
  }
  if (!path.startsWith('$') || depth !== 0) {
    throw usageError(`--ignore expects a JSONPath starting with $ (like $.result.serverInfo.version or $..timestamp), got ${JSON.stringify(path)}`);
  }
  // Evaluated once on a small sample so a broken filter expression is an error now, not mid-comparison.
  try {
    jsonpath().JSONPath({ path, json: { a: [{ b: 1 }], c: { d: [1] } }, resultType: 'pointer' });
  } catch (err) {
    throw usageError(`--ignore: invalid JSONPath ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  return path;
}

export class Normaliser {
  private readonly ignore: readonly string[];
  private readonly filters: readonly TextFilter[];
  private readonly ignoreKeyOrder: boolean;
  private readonly scoped: readonly ScopedRules[];
  private readonly byScope = new Map<string, Normaliser>();

  constructor(rules: NormaliseRules = {}) {
    this.ignore = (rules.ignore ?? []).map(validateJsonPath);
    this.filters = rules.filters ?? [];
    this.ignoreKeyOrder = rules.ignoreKeyOrder ?? false;
    this.scoped = rules.scoped ?? [];
  }

  get isIdentity(): boolean {
    return this.ignore.length === 0 && this.filters.length === 0 && !this.ignoreKeyOrder;
  }

  /** The rules for one pair: the global ones plus the scoped ones its request matches. */
  forRequest(request: string): Normaliser {
    if (this.scoped.length === 0) return this;
    const facts = requestFacts(request);
    const hits = this.scoped.filter((s) => inScope(s.scope, facts));
    if (hits.length === 0) return this;
    const key = hits.map((h) => this.scoped.indexOf(h)).join(',');
    let n = this.byScope.get(key);
    if (!n) {
      n = new Normaliser({
        ignore: [...this.ignore, ...hits.flatMap((h) => h.ignore ?? [])],
        filters: [...this.filters, ...hits.flatMap((h) => h.filters ?? [])],
        ignoreKeyOrder: this.ignoreKeyOrder || hits.some((h) => h.ignoreKeyOrder),
      });
      this.byScope.set(key, n);
    }
    return n;
  }

  /** Normalises a run of NDJSON (or any) text, line by line for the JSON part. */
  apply(text: string): string {
    if (this.isIdentity) return text;
    let out = text;
    for (const f of this.filters) out = out.replace(f.pattern, f.replacement);
    if (this.ignore.length === 0 && !this.ignoreKeyOrder) return out;
    return out
      .split('\n')
      .map((line) => this.sortLine(this.ignore.length ? this.ignoreInLine(line) : line))
      .join('\n');
  }

  private sortLine(line: string): string {
    if (!this.ignoreKeyOrder) return line;
    const t = line.trim();
    if (!t.startsWith('{') && !t.startsWith('[')) return line;
    try {
      return JSON.stringify(sortKeys(JSON.parse(line)));
    } catch {
      return line;
    }
  }

  private ignoreInLine(line: string): string {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return line;
    // A value nested past the limit is compared as text: walking it would overflow the stack.
    if (tooDeep(line)) return line;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return line;
    }
    const tree = jsonc().parseTree(line);
    if (!tree) return line;
    const ranges: Array<{ start: number; end: number }> = [];
    for (const path of this.ignore) {
      const pointers = jsonpath().JSONPath({ path, json: json as object, resultType: 'pointer' }) as string[];
      for (const pointer of pointers) {
        const node = nodeAtPointer(tree, pointer);
        if (node) ranges.push({ start: node.offset, end: node.offset + node.length });
      }
    }
    if (ranges.length === 0) return line;
    // Outermost ranges win; splice from the end so earlier offsets stay valid.
    ranges.sort((a, b) => a.start - b.start || b.end - a.end);
    const kept: typeof ranges = [];
    for (const r of ranges) {
      const last = kept[kept.length - 1];
      if (last && r.start < last.end) continue;
      kept.push(r);
    }
    let out = line;
    for (const r of kept.reverse()) out = out.slice(0, r.start) + IGNORED + out.slice(r.end);
    return out;
  }
}

function nodeAtPointer(tree: JsonNode, pointer: string): JsonNode | undefined {
  if (pointer === '') return tree;
  const segments = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  // findNodeAtLocation wants numbers for array indices.
  const location: Array<string | number> = [];
  let node: JsonNode | undefined = tree;
  for (const seg of segments) {
    if (!node) return undefined;
    location.push(node.type === 'array' ? Number(seg) : seg);
    node = jsonc().findNodeAtLocation(tree, location);
  }
  return node;
}
