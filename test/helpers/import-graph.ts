import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** One module reference in a src file. `lazy` marks `import()` calls, which load on first use. */
export interface Reference {
  from: string;
  to: string; // a src-relative path ("core/diagnostics/errors.ts") or a package name ("node-pty")
  lazy: boolean;
  /** Erased at run time (`import type`, type-only names): counts for layers, not for loading. */
  typeOnly: boolean;
  line: number;
}

export interface ImportGraph {
  files: string[];
  lines: Map<string, number>;
  references: Reference[];
}

const SRC = resolve(import.meta.dirname, '../../src');

function listTs(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) listTs(p, out);
    else if (/\.ts$/.test(e.name) && !/\.d\.ts$/.test(e.name)) out.push(p);
  }
  return out;
}

function packageName(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function isTypeOnlyImport(n: ts.ImportDeclaration): boolean {
  const c = n.importClause;
  if (!c) return false;
  if (c.isTypeOnly) return true;
  const named = c.namedBindings;
  return !c.name && !!named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
}

function isTypeOnlyExport(n: ts.ExportDeclaration): boolean {
  if (n.isTypeOnly) return true;
  const c = n.exportClause;
  return !!c && ts.isNamedExports(c) && c.elements.length > 0 && c.elements.every((e) => e.isTypeOnly);
}

/** The import graph of src/, read with TypeScript's parser (static, re-export, type and dynamic imports). */
export function readImportGraph(): ImportGraph {
  const files = listTs(SRC).map((f) => relative(SRC, f).split('\\').join('/')).sort();
  const lines = new Map<string, number>();
  const references: Reference[] = [];
  for (const file of files) {
    const text = readFileSync(join(SRC, file), 'utf8');
    lines.set(file, text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const add = (node: ts.Node | undefined, lazy: boolean, typeOnly = false) => {
      if (!node || !ts.isStringLiteralLike(node)) return;
      const spec = node.text;
      const line = sf.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      const to = spec.startsWith('.')
        ? relative(SRC, resolve(SRC, dirname(file), spec)).split('\\').join('/').replace(/\.js$/, '.ts')
        : spec.startsWith('node:') ? spec : packageName(spec);
      references.push({ from: file, to, lazy, typeOnly, line });
    };
    const visit = (n: ts.Node) => {
      if (ts.isImportDeclaration(n)) add(n.moduleSpecifier, false, isTypeOnlyImport(n));
      else if (ts.isExportDeclaration(n) && n.moduleSpecifier) add(n.moduleSpecifier, false, isTypeOnlyExport(n));
      else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) add(n.arguments[0], true);
      else if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'require') add(n.arguments[0], false);
      else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument)) add(n.argument.literal, false, true);
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return { files, lines, references };
}

/** Layers bottom to top (docs/ARCHITECTURE.md); a folder may import only its own layer or lower ones. */
export const LAYERS: readonly (readonly string[])[] = [['core'], ['plumbing'], ['tape'], ['session'], ['render', 'recorder'], ['replayer', 'agent-tty'], ['report', 'matchers'], ['cli']];

export function layerOf(file: string): number {
  if (!file.includes('/')) return LAYERS.length; // src/index.ts sits above every layer
  const folder = file.split('/')[0];
  const i = LAYERS.findIndex((names) => names.includes(folder));
  if (i === -1) throw new Error(`src/${folder} is in no layer: add it to LAYERS and docs/ARCHITECTURE.md`);
  return i;
}

/** File cycles, as lists of files (Tarjan's strongly connected components of size > 1). */
export function fileCycles(graph: ImportGraph): string[][] {
  const edges = new Map<string, string[]>();
  for (const r of graph.references) if (graph.lines.has(r.to)) edges.set(r.from, [...(edges.get(r.from) ?? []), r.to]);
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index); low.set(v, index); index++;
    stack.push(v); on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) { strong(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do { w = stack.pop()!; on.delete(w); comp.push(w); } while (w !== v);
      if (comp.length > 1 || (edges.get(v) ?? []).includes(v)) out.push(comp.sort());
    }
  };
  for (const f of graph.files) if (!idx.has(f)) strong(f);
  return out;
}

/** Every src file and package loaded at start-up from `entries`, following static imports only. */
export function eagerClosure(graph: ImportGraph, entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...entries];
  while (todo.length > 0) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const r of graph.references) if (r.from === f && !r.lazy && !r.typeOnly) todo.push(r.to);
  }
  return seen;
}
