import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../core/atomic-write.js';
import type { ProtocolTape } from '../tape/protocol-tape.js';
import { formatPair } from '../tape/protocol-tape.js';

/**
 * The update path: rewrites the given pairs of a tape with new responses,
 * keeping every other line byte for byte, in one atomic replace.
 */
export function rewriteTape(tape: ProtocolTape, responses: Map<number, string | Buffer>, target = tape.path): void {
  const text = readFileSync(tape.path);
  const pieces: Buffer[] = [];
  let cursor = 0;
  tape.pairs.forEach((pair, i) => {
    const response = responses.get(i);
    if (response === undefined) return;
    pieces.push(text.subarray(cursor, pair.byteStart));
    pieces.push(Buffer.from(replaceResponse(pair.raw, pair.request, response), 'utf8'));
    cursor = pair.byteEnd;
  });
  pieces.push(text.subarray(cursor));
  writeFileAtomic(target, Buffer.concat(pieces));
}

/**
 * The line that accepts a new response: other keys kept; response_base64
 * rewritten from the new bytes when they are not UTF-8, else dropped as stale.
 */
export function replaceResponse(rawLine: string, request: string, response: string | Buffer): string {
  const obj = JSON.parse(rawLine) as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => k !== 'request' && k !== 'response' && k !== 'response_base64');
  const pair = formatPair(request, response);
  if (keys.length === 0) return pair;
  const out: Record<string, unknown> = JSON.parse(pair) as Record<string, unknown>;
  for (const k of keys) out[k] = obj[k];
  return JSON.stringify(out);
}
