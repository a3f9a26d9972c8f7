import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { cpuTime, processState } from './quiet.js';

/**
 * The process reading what we write, observed from /proc (Linux), so that a
 * writer can wait for a condition instead of a clock: the reader has run since
 * a write and is waiting again, so what was written has been read on its own
 * (see waitUntilRead). Two readers: our parent at the other end of a pipe (an
 * MCP client that spawned `tapedeck serve` over stdio), and a server we
 * started with everything it started (a replay's server, behind `sh -c` or npx).
 */
export interface Reader {
  /** A count that moves whenever the reader runs; undefined once it cannot be read. */
  runs(): number | undefined;
  /** It is not running now: back waiting for input (or on a timer). */
  waiting(): boolean;
}

/** The parent process, when it holds the other end of our pipe `fd`; undefined elsewhere. */
export function pipePeer(fd: number): Reader | undefined {
  try {
    const pipe = readlinkSync(`/proc/self/fd/${fd}`);
    if (!pipe.startsWith('pipe:')) return undefined;
    const pid = process.ppid;
    for (const entry of readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${entry}`) === pipe) return mainThread(pid);
      } catch {
        /* closed meanwhile */
      }
    }
  } catch {
    /* no /proc, or not ours to read */
  }
  return undefined;
}

/** A process we started and its descendants, taken together; undefined without /proc. */
export function processTree(pid: number): Reader | undefined {
  if (process.platform !== 'linux' || cpuTime(pid) === 0) return undefined;
  return { runs: () => cpuTime(pid) || undefined, waiting: () => processState(pid) !== 'busy' };
}

/** One process's main thread: how many times it has been scheduled, and whether it is running now. */
function mainThread(pid: number): Reader {
  return {
    runs: () => {
      try {
        const runs = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[2]);
        return Number.isFinite(runs) ? runs : undefined;
      } catch {
        return undefined;
      }
    },
    waiting: () => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'R';
      } catch {
        return true;
      }
    },
  };
}

/** The state to compare against, taken right before a write (a read right after it still counts). */
export function peerMark(reader: Reader): number | undefined {
  return reader.runs();
}

/**
 * Resolves once the reader has run since `mark` and is waiting again (it has
 * read what was there), polled every millisecond; at most `maxMs` (a reader
 * busy with something else still gets the rest in time). Returns whether the
 * condition was seen.
 */
export async function waitUntilRead(reader: Reader, mark: number | undefined, maxMs: number): Promise<boolean> {
  const until = performance.now() + maxMs;
  while (performance.now() < until) {
    await new Promise((r) => setTimeout(r, 1));
    const runs = reader.runs();
    if (runs === undefined || mark === undefined) return false;
    if (runs > mark && reader.waiting()) return true;
  }
  return false;
}
