import { fstatSync, readSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';

/**
 * The bin's stdin when it is a regular file or /dev/null (`< req.json`, a CI step, a parent that
 * spawned it with stdin ignored) is read with fs.readSync. Node's own process.stdin for a file is
 * an fs.ReadStream, whose module loads fs/promises, readline and the fs watchers with it and which
 * reads on the thread pool, starting it: about 2.5 ms of a `tapedeck record` start
 * (bench/cli-start.mjs). A file never blocks a read for long, and it is read only as the stream
 * is read, in the same chunks. Pipes, sockets, terminals and other devices keep Node's stream.
 * process.stdin itself is replaced (on first use), so everything that compares with it still sees one stream.
 */
export function readFileStdinSync(): void {
  const node = Object.getOwnPropertyDescriptor(process, 'stdin');
  if (!node?.get || !node.configurable) return;
  let stdin: NodeJS.ReadStream | undefined;
  Object.defineProperty(process, 'stdin', {
    configurable: true,
    enumerable: node.enumerable,
    get: () => (stdin ??= fileStdin() ?? (node.get!.call(process) as NodeJS.ReadStream)),
  });
}

function fileStdin(): NodeJS.ReadStream | undefined {
  try {
    const st = fstatSync(0);
    if (!st.isFile() && !(st.isCharacterDevice() && st.rdev === statSync('/dev/null').rdev)) return undefined;
  } catch {
    return undefined; // no stdin at all: Node's stand-in
  }
  const stream = new Readable({
    highWaterMark: 64 * 1024,
    read(size) {
      const chunk = Buffer.allocUnsafe(size);
      let n: number;
      try {
        n = readSync(0, chunk, 0, size, null);
      } catch (err) {
        this.destroy(err as Error);
        return;
      }
      this.push(n === 0 ? null : chunk.subarray(0, n));
    },
  });
  // As Node's: the descriptor, left open at the end.
  return Object.assign(stream, { fd: 0 }) as unknown as NodeJS.ReadStream;
}
