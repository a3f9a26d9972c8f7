import { dirname, relative, resolve } from 'node:path';
import { openCast } from './read.js';
import { eventBytes, parseResize, type CastFormat } from './events.js';
import { CastWriter } from './write.js';

/**
 * Converts a cast between asciicast versions (any readable version → v2 or
 * v3), event by event and streaming, keeping inputs, markers, resizes, the
 * exit and bytes that are not valid UTF-8.
 */
export async function convertCast(input: string, output: string, format: CastFormat): Promise<{ events: number }> {
  const cast = await openCast(input);
  const h = cast.header;
  const writer = new CastWriter(output, {
    format,
    cols: h.cols,
    rows: h.rows,
    termType: h.termType,
    timestamp: h.timestamp,
    title: h.title,
    argv: h.argv,
    command: h.command,
    idleTimeLimit: h.idleTimeLimit,
    env: h.env,
    cwd: h.cwd,
    // Relative to the new tape's directory.
    cwdFromTape: h.cwdFromTape ? relative(dirname(resolve(output)), resolve(dirname(input), h.cwdFromTape)) || '.' : undefined,
    theme: h.theme,
    termVersion: h.termVersion,
    tags: h.tags,
  });
  let events = 0;
  try {
    for await (const e of cast.events()) {
      events++;
      if (e.code === 'o') writer.output(e.time, eventBytes(e));
      else if (e.code === 'i') writer.input(e.time, eventBytes(e));
      else if (e.code === 'm') writer.marker(e.time, e.data);
      else if (e.code === 'x') writer.exit(e.time, Number(e.data));
      else if (e.code === 'r') {
        const size = parseResize(e.data);
        if (size) writer.resize(e.time, size.cols, size.rows);
      } else events--; // codes tapedeck does not know are not carried over
    }
  } catch (err) {
    writer.abort();
    throw err;
  }
  writer.close();
  return { events };
}
