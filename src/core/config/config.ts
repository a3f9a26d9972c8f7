import { existsSync, readFileSync } from 'node:fs';
import { refuseSpecialFile } from '../files/special-file.js';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Node as JsonNode, ParseError } from 'jsonc-parser';
import { lazyPackage } from '../lazy-package.js';

// Loaded only when a config file exists.
const jsonc = lazyPackage<typeof import('jsonc-parser')>('jsonc-parser');
import { TapedeckError } from '../diagnostics/errors.js';
import { compileRegex, parseFilter, validateJsonPath, type ScopedRules, type TextFilter } from '../text/normalise.js';
import { parseBoundary, type Boundary } from '../framing/boundary.js';
import { parseMaskRect, type MaskRect } from '../text/mask.js';
import { readScriptConfig, SCRIPT_CONFIG_FILES } from './script.js';
import { MATCHER_NAMES } from './define.js';

/**
 * tapedeck.config.json: the normalisers and defaults a project declares once
 * instead of repeating flags. Flags add to (ignore, filter) or override
 * (timeoutMs, boundary) what the file says.
 */
export interface TapedeckConfig {
  path?: string;
  ignore: string[];
  filters: TextFilter[];
  timeoutMs?: number;
  boundary?: Boundary;
  goldens?: string;
  /** Volatile screen regions for terminal replay: regexes over each line, or cell rectangles. */
  masks: (RegExp | MaskRect)[];
  /** Normalisers for some requests only: {"method"|"tool"|"op": ..., "ignore": [...], "filter": [...]}. */
  scoped: ScopedRules[];
  ignoreKeyOrder?: boolean;
  /** The most bytes one response may have before it is drift (default 64 MiB). */
  maxResponseBytes?: number;
  /** Defaults per matcher (tapedeck.config.ts's `matchers`), as given: the matchers read them. */
  matchers: Record<string, Record<string, unknown>>;
}

export const CONFIG_FILE = 'tapedeck.config.json';
/** Node's timers overflow above this. */
const MAX_TIMEOUT_MS = 2_147_483_647;

export function loadConfig(explicitPath?: string, cwd = process.cwd()): TapedeckConfig {
  const found = explicitPath ? [resolve(cwd, explicitPath)] : [...SCRIPT_CONFIG_FILES, CONFIG_FILE].map((f) => resolve(cwd, f)).filter((f) => existsSync(f));
  if (found.length === 0) return { ignore: [], filters: [], masks: [], scoped: [], matchers: {} };
  if (found.length > 1) throw new TapedeckError('CONFIG', `two config files: ${found.map((f) => f.slice(cwd.length + 1)).join(' and ')}; keep one`, { location: { file: found[1] } });
  const path = found[0];
  const script = !path.endsWith('.json');
  let text: string;
  refuseSpecialFile(path);
  try {
    text = script ? readScriptConfig(path) : readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof TapedeckError) throw err;
    throw new TapedeckError('CONFIG', `cannot read the config file: ${(err as Error).message}`, { location: { file: path } });
  }
  const shown = explicitPath ?? path.slice(resolve(cwd).length + 1);
  const lineOf = (offset: number) => text.slice(0, offset).split('\n').length;
  const fail = (node: JsonNode | undefined, message: string): never => {
    throw new TapedeckError('CONFIG', message, { location: { file: shown, line: node ? lineOf(node.offset) : 1 } });
  };
  const errors: ParseError[] = [];
  const tree = jsonc().parseTree(text, errors, { allowTrailingComma: false, disallowComments: true });
  if (errors.length > 0) fail({ offset: errors[0].offset } as JsonNode, `invalid JSON: ${jsonc().printParseErrorCode(errors[0].error)}`);
  if (!tree || tree.type !== 'object') return fail(tree, 'the config must be a JSON object');

  const config: TapedeckConfig = { path, ignore: [], filters: [], masks: [], scoped: [], matchers: {} };
  const known = new Set(['ignore', 'filter', 'timeoutMs', 'boundary', 'goldens', 'mask', 'scoped', 'ignoreKeyOrder', 'maxResponseBytes', 'matchers']);
  for (const prop of tree.children ?? []) {
    const key = prop.children?.[0]?.value as string;
    if (!known.has(key)) fail(prop, `unknown key ${JSON.stringify(key)} (known: ${[...known].join(', ')})`);
  }
  const readIgnore = (ignore: JsonNode | undefined, into: string[]) => {
    if (!ignore) return;
    if (ignore.type !== 'array') fail(ignore, '"ignore" must be an array of JSONPath strings');
    for (const item of ignore.children ?? []) {
      if (item.type !== 'string') fail(item, '"ignore" entries must be strings');
      try {
        into.push(validateJsonPath(item.value as string));
      } catch (err) {
        fail(item, (err as Error).message.replace('--ignore', '"ignore"'));
      }
    }
  };
  const readFilters = (filter: JsonNode | undefined, into: TextFilter[]) => {
    if (!filter) return;
    if (filter.type !== 'array') fail(filter, '"filter" must be an array of "REGEX=REPLACEMENT" strings or {"pattern","replacement"} objects');
    for (const item of filter.children ?? []) {
      try {
        if (item.type === 'string') into.push(parseFilter(item.value as string));
        else if (item.type === 'object') {
          const pattern = jsonc().findNodeAtLocation(item, ['pattern'])?.value;
          const replacement = jsonc().findNodeAtLocation(item, ['replacement'])?.value ?? '';
          if (typeof pattern !== 'string' || typeof replacement !== 'string') fail(item, 'a "filter" object needs string "pattern" and "replacement"');
          into.push({ pattern: compileRegex(pattern as string, '"filter"'), replacement: replacement as string, source: pattern as string });
        } else fail(item, '"filter" entries must be strings or objects');
      } catch (err) {
        if (err instanceof TapedeckError && err.location) throw err;
        fail(item, (err as Error).message);
      }
    }
  };
  readIgnore(jsonc().findNodeAtLocation(tree, ['ignore']), config.ignore);
  readFilters(jsonc().findNodeAtLocation(tree, ['filter']), config.filters);
  const scoped = jsonc().findNodeAtLocation(tree, ['scoped']);
  if (scoped) {
    if (scoped.type !== 'array') fail(scoped, '"scoped" must be an array of {"method"|"tool"|"op", "ignore", "filter", "ignoreKeyOrder"} objects');
    for (const item of scoped.children ?? []) {
      if (item.type !== 'object') fail(item, '"scoped" entries must be objects');
      const rule: ScopedRules = { scope: {}, ignore: [], filters: [] };
      for (const prop of item.children ?? []) {
        const [k, v] = prop.children ?? [];
        const key = String(k?.value);
        if (key === 'method' || key === 'tool' || key === 'op') {
          if (v?.type !== 'string') fail(prop, `"scoped": "${key}" must be a string`);
          rule.scope[key] = v!.value as string;
        } else if (key === 'ignore') readIgnore(v, rule.ignore as string[]);
        else if (key === 'filter') readFilters(v, rule.filters as TextFilter[]);
        else if (key === 'ignoreKeyOrder') rule.ignoreKeyOrder = v?.value === true;
        else fail(prop, `"scoped": unknown key ${JSON.stringify(key)} (known: method, tool, op, ignore, filter, ignoreKeyOrder)`);
      }
      if (Object.keys(rule.scope).length === 0) fail(item, '"scoped" entries need "method", "tool" or "op" to say where they apply');
      config.scoped.push(rule);
    }
  }
  const keyOrder = jsonc().findNodeAtLocation(tree, ['ignoreKeyOrder']);
  if (keyOrder) {
    if (keyOrder.type !== 'boolean') fail(keyOrder, '"ignoreKeyOrder" must be true or false');
    config.ignoreKeyOrder = keyOrder.value as boolean;
  }
  const maxBytes = jsonc().findNodeAtLocation(tree, ['maxResponseBytes']);
  if (maxBytes) {
    if (maxBytes.type !== 'number' || !Number.isInteger(maxBytes.value) || maxBytes.value < 1) fail(maxBytes, '"maxResponseBytes" must be a whole number of bytes, at least 1');
    config.maxResponseBytes = maxBytes.value as number;
  }
  const timeout = jsonc().findNodeAtLocation(tree, ['timeoutMs']);
  if (timeout) {
    if (timeout.type !== 'number' || !Number.isInteger(timeout.value) || timeout.value <= 0 || timeout.value > MAX_TIMEOUT_MS) {
      fail(timeout, `"timeoutMs" must be a whole number from 1 to ${MAX_TIMEOUT_MS}`);
    }
    config.timeoutMs = timeout.value as number;
  }
  const boundary = jsonc().findNodeAtLocation(tree, ['boundary']);
  if (boundary) {
    try {
      config.boundary = parseBoundary(String(boundary.value));
    } catch (err) {
      fail(boundary, (err as Error).message.replace('--boundary', '"boundary"'));
    }
  }
  const goldens = jsonc().findNodeAtLocation(tree, ['goldens']);
  if (goldens) {
    if (goldens.type !== 'string') fail(goldens, '"goldens" must be a directory path');
    // Tapes under the goldens folder are the project's own and run their recorded command: the folder
    // must be inside the project (the config's folder), never "/", an absolute path or a "../" escape.
    const value = goldens.value as string;
    const rel = relative(dirname(path), resolve(dirname(path), value));
    if (value === '' || isAbsolute(value) || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
      fail(goldens, `"goldens" must be a folder inside the project (relative to the config's folder, no "../"), got ${JSON.stringify(value)}`);
    }
    config.goldens = value;
  }
  const mask = jsonc().findNodeAtLocation(tree, ['mask']);
  if (mask) {
    if (mask.type !== 'array') fail(mask, '"mask" must be an array of regex strings or {"row","col","width","height"} objects');
    for (const item of mask.children ?? []) {
      try {
        if (item.type === 'string') config.masks.push(compileRegex(item.value as string, '"mask"'));
        else if (item.type === 'object') config.masks.push(parseMaskRect(objectValue(item), '"mask"'));
        else fail(item, '"mask" entries must be regex strings or {"row","col","width","height"} objects');
      } catch (err) {
        if (err instanceof TapedeckError && err.location) throw err;
        fail(item, (err as Error).message);
      }
    }
  }
  const matchers = jsonc().findNodeAtLocation(tree, ['matchers']);
  if (matchers) {
    if (matchers.type !== 'object') fail(matchers, '"matchers" must be an object of per-matcher defaults, like {"toMatchScreenshot": {"maxDiffPixels": 10}}');
    for (const prop of matchers.children ?? []) {
      const [k, v] = prop.children ?? [];
      const name = String(k?.value);
      if (!(MATCHER_NAMES as readonly string[]).includes(name)) fail(prop, `"matchers": unknown matcher ${JSON.stringify(name)} (known: ${MATCHER_NAMES.join(', ')})`);
      if (v?.type !== 'object') fail(prop, `"matchers": "${name}" must be an object of that matcher's options`);
      config.matchers[name] = jsonc().getNodeValue(v!) as Record<string, unknown>;
    }
  }
  return config;
}

/** The plain value of a JSON object node (numbers, strings, booleans). */
function objectValue(node: JsonNode): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const prop of node.children ?? []) {
    const [key, value] = prop.children ?? [];
    if (key && value) out[String(key.value)] = value.value;
  }
  return out;
}
