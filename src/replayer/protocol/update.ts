import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../core/files/atomic-write.js';
import type { ProtocolTape } from '../../tape/protocol/tape.js';
import { parseProtocolTape, replaceResponse } from '../../tape/protocol/tape.js';
import { notesPath } from '../../tape/protocol/notes.js';
import { withFileLock } from '../../core/files/file-lock.js';
import { TapedeckError, ioError } from '../../core/diagnostics/errors.js';

/**
 * The update path: rewrites the given pairs of a tape with new responses,
 * keeping every other line byte for byte, in one atomic replace. Under the
 * tape's lock the file is read and parsed again, so a writer that ran in
 * between (a parallel --update, a review) is built on, never spliced into
 * with stale offsets; if its pairs are no longer the ones replayed, nothing
 * is written and the error says so.
 */
export function rewriteTape(tape: ProtocolTape, responses: Map<number, string | Buffer>, target = tape.path): void {
  withFileLock(tape.path, () => {
    let text: Buffer;
    try {
      text = readFileSync(tape.path);
    } catch (err) {
      throw ioError(tape.path, err);
    }
    const fresh = parseProtocolTape(tape.path, text, { quiet: true });
    const changed = fresh.pairs.length !== tape.pairs.length || fresh.pairs.some((p, i) => p.request !== tape.pairs[i].request);
    if (changed) {
      throw new TapedeckError('TD2006', `the tape changed while it was replayed (its requests are not the ones replayed); nothing was rewritten: replay it again`, {
        location: { file: tape.path },
      });
    }
    // Pairs kept in the tape's notes file (not agent requests) are rewritten there.
    writeFileAtomic(target, splice(text, fresh.pairs, responses, false));
    if (fresh.pairs.some((p, i) => p.inNotes && responses.has(i))) {
      const notes = notesPath(tape.path);
      let bytes: Buffer;
      try {
        bytes = readFileSync(notes);
      } catch (err) {
        throw ioError(notes, err);
      }
      writeFileAtomic(target === tape.path ? notes : `${notes}.new`, splice(bytes, fresh.pairs, responses, true));
    }
  });
}

function splice(text: Buffer, pairs: ProtocolTape['pairs'], responses: Map<number, string | Buffer>, inNotes: boolean): Buffer {
  const pieces: Buffer[] = [];
  let cursor = 0;
  pairs.forEach((pair, i) => {
    const response = responses.get(i);
    if (response === undefined || (pair.inNotes ?? false) !== inNotes) return;
    pieces.push(text.subarray(cursor, pair.byteStart));
    pieces.push(Buffer.from(replaceResponse(pair.raw, pair.request, response), 'utf8'));
    cursor = pair.byteEnd;
  });
  pieces.push(text.subarray(cursor));
  return Buffer.concat(pieces);
}
