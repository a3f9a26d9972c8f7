/**
 * Seed 000 records "the literal request line as the agent received it
 * (whitespace-trimmed)", trimmed as Rust's str::trim does: Unicode White_Space
 * only. JavaScript's trim() also strips U+FEFF (a byte order mark), which is
 * not White_Space, so a request starting with a BOM would lose it; this one keeps it.
 */
const EDGES = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

export function trimWhiteSpace(text: string): string {
  return text.replace(EDGES, '');
}
