import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The process at the other end of a pipe we write to, when it is our parent
 * (an MCP client that spawned `tapedeck serve` over stdio), found from /proc
 * (Linux). With it, a writer can wait for a condition instead of a clock: that
 * the reader has run since a write and is waiting again, so what was written
 * has been read on its own (see waitUntilRead). Undefined elsewhere.
 */
export interface PipePeer {
  pid: number;
}

export function pipePeer(fd: number): PipePeer | undefined {
  try {
    const pipe = readlinkSync(`/proc/self/fd/${fd}`);
    if (!pipe.startsWith('pipe:')) return undefined;
    const pid = process.ppid;
    for (const entry of readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${entry}`) === pipe) return { pid };
      } catch {
        /* closed meanwhile */
      }
    }
  } catch {
    /* no /proc, or not ours to read */
  }
  return undefined;
}

/** The peer's main thread: how many times it has been scheduled, and whether it is running now. */
function sample(pid: number): { runs: number; running: boolean } | undefined {
  try {
    const runs = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[2]);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return Number.isFinite(runs) ? { runs, running: state === 'R' } : undefined;
  } catch {
    return undefined;
  }
}

/** The state to compare against, taken right after a write. */
export function peerMark(peer: PipePeer): number | undefined {
  return sample(peer.pid)?.runs;
}

/**
 * Resolves once the peer has been scheduled since `mark` and is not running
 * (back waiting for input: it has read what was there), polled every
 * millisecond; at most `maxMs` (a peer busy with something else still gets
 * the rest in time). Returns whether the condition was seen.
 */
export async function waitUntilRead(peer: PipePeer, mark: number | undefined, maxMs: number): Promise<boolean> {
  const until = performance.now() + maxMs;
  while (performance.now() < until) {
    await new Promise((r) => setTimeout(r, 1));
    const now = sample(peer.pid);
    if (!now || mark === undefined) return false;
    if (now.runs > mark && !now.running) return true;
  }
  return false;
}
