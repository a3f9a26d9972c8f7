/**
 * Seed 000 records "the literal request line as the agent received it
 * (whitespace-trimmed)", trimmed as Rust's str::trim does: Unicode White_Space
 * only. JavaScript's trim() also strips U+FEFF (a byte order mark), which is
 * not White_Space, so a request starting with a BOM would lose it; this one keeps it.
 * (A scan, not a regular expression: the recording tap trims every request.)
 */
export function trimWhiteSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isWhiteSpace(text.charCodeAt(start))) start++;
  while (end > start && isWhiteSpace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** Unicode White_Space: \t \n \v \f \r, space, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000. */
function isWhiteSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x85) return false;
  return c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}
