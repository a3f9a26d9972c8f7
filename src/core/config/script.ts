import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { TapedeckError } from '../diagnostics/errors.js';
import { defineConfig } from './define.js';

/** Config files tapedeck looks for, in this order: the typed module forms first, then JSON. */
export const SCRIPT_CONFIG_FILES = ['tapedeck.config.ts', 'tapedeck.config.mts', 'tapedeck.config.js', 'tapedeck.config.mjs'];

interface TypeScriptLike {
  transpileModule(input: string, options: { compilerOptions: Record<string, unknown>; fileName?: string }): { outputText: string };
  ModuleKind: { CommonJS: number };
  ScriptTarget: { ES2022: number };
}

/**
 * Reads tapedeck.config.ts (or .mts/.js/.mjs) synchronously, as the JSON form
 * is read: the project's own `typescript` package transpiles it to CommonJS
 * (a TypeScript project has it; nothing is installed for it), and
 * `import { defineConfig } from 'tapedeck/config'` resolves to tapedeck's own. The
 * default export is returned as the JSON text the JSON form would be, so both
 * go through one validation. RegExps become their source.
 */
export function readScriptConfig(path: string): string {
  const shown = basename(path);
  const source = readFileSync(path, 'utf8');
  const req = createRequire(path);
  let ts: TypeScriptLike;
  try {
    ts = req('typescript') as TypeScriptLike;
  } catch {
    throw new TapedeckError('CONFIG', `${shown} needs the typescript package to be read (npm install --save-dev typescript), or write the same keys in tapedeck.config.json`, { location: { file: shown } });
  }
  const js = ts.transpileModule(source, { fileName: path, compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText;
  const mod: { exports: Record<string, unknown> } = { exports: {} };
  const own = { defineConfig, default: { defineConfig } };
  const localRequire = (id: string) => (id === 'tapedeck' || id === 'tapedeck/config' ? own : req(id));
  try {
    new Function('exports', 'require', 'module', '__filename', '__dirname', js)(mod.exports, localRequire, mod, path, path);
  } catch (err) {
    throw new TapedeckError('CONFIG', `${shown} failed to load: ${(err as Error).message}`, { location: { file: shown } });
  }
  const value = (mod.exports.default ?? mod.exports) as unknown;
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new TapedeckError('CONFIG', `${shown} must \`export default defineConfig({ ... })\``, { location: { file: shown } });
  }
  return JSON.stringify(value, (_k, v: unknown) => (v instanceof RegExp ? v.source : v), 2);
}
