/** VHS `.tape` scripts (charmbracelet/vhs's grammar): lexer, parser, loader and compiler-style errors. */
export type { VhsCommand, VhsDiagnostic, VhsKey, VhsLocation, VhsOutputKind, VhsSettingName, VhsTape } from './ast.js';
export { Lexer, type Token } from './lexer.js';
export { parseTape, MAX_TYPE_CHARS, type ParseResult } from './parser.js';
export { loadTape, formatDiagnostics, MAX_SOURCE_DEPTH, MAX_TAPE_BYTES, type LoadResult } from './load.js';
export { VHS_SHELLS } from './settings.js';
export { compileGoRegex, durationMs, formatDuration } from './values.js';
