/**
 * Pairing plain NDJSON by an id field (`--pair-by PATH`, `--boundary id:PATH`):
 * CDP-style protocols put a request id at a path of their own choosing, and the
 * line of the server's output carrying the same value at that path is the answer.
 */

/** `id`, `meta.request_id`: dot-separated keys (an empty key is refused by the caller). */
export function parseKeyPath(spec: string): string[] | undefined {
  const keys = spec.split('.');
  return keys.length > 0 && keys.every((k) => /^[A-Za-z0-9_$-]+$/.test(k)) ? keys : undefined;
}

/** The value at `path` in one JSON object text, as JSON text (so 1 and "1" differ), or undefined. */
export function keyOf(value: unknown, path: readonly string[]): string | undefined {
  let v: unknown = value;
  for (const key of path) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  if (v === undefined || v === null || typeof v === 'object') return undefined;
  return JSON.stringify(v);
}

/** keyOf for a server line; lines that cannot carry the key are not parsed. */
export function keyOfLine(text: string, path: readonly string[]): string | undefined {
  if (!text.includes(`"${path[path.length - 1]}"`)) return undefined;
  const start = text.trimStart();
  if (start[0] !== '{') return undefined;
  try {
    return keyOf(JSON.parse(start) as unknown, path);
  } catch {
    return undefined;
  }
}
