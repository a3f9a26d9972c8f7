import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

/**
 * What the processes of a terminal are doing, read from /proc: whether waiting
 * longer could change the screen. "idle": every process under the shell waits
 * for terminal input (read, or poll/select with no timeout or one over a
 * second) or for its children; "timer": some process sleeps on a short timer
 * (it will wake by itself: output may follow); "busy": some process runs, is
 * in the disk, or is a zombie not yet reaped.
 */
export type ProcessState = 'idle' | 'timer' | 'busy';

const READ = new Set([0, 17, 19]); // read, pread64, readv
const WAIT_CHILD = new Set([61, 247]); // wait4, waitid
/** Syscall number → how to find its timeout: ['int', arg] (ms, -1 none) or ['timespec'|'timeval', arg] (pointer, 0 none). */
const POLLS: Record<number, ['int' | 'timespec' | 'timeval', number]> = {
  7: ['int', 2], // poll
  23: ['timeval', 4], // select
  232: ['int', 3], // epoll_wait
  270: ['timespec', 4], // pselect6
  271: ['timespec', 2], // ppoll
  281: ['int', 3], // epoll_pwait
  441: ['timespec', 3], // epoll_pwait2
};
/** A timer at least this long is taken as not about to change the screen (vim's 4 s updatetime, for one). */
const LONG_TIMER_MS = 1000;

export function processState(rootPid: number): ProcessState {
  if (process.platform !== 'linux') return 'busy';
  const seen = new Set<number>();
  const stack = [rootPid];
  let timer = false;
  while (stack.length) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const state = one(pid);
    if (state === 'gone') continue;
    if (state === 'busy') return 'busy';
    if (state === 'timer') timer = true;
    stack.push(...children(pid));
  }
  return timer ? 'timer' : 'idle';
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function children(pid: number): number[] {
  const text = read(`/proc/${pid}/task/${pid}/children`);
  return text ? text.trim().split(/\s+/).filter(Boolean).map(Number) : [];
}

function one(pid: number): ProcessState | 'gone' {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return 'gone';
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  if (state !== 'S' && state !== 'T' && state !== 't' && state !== 'I') return state === 'X' ? 'gone' : 'busy';
  if (state === 'T' || state === 't') return 'idle'; // stopped (Ctrl+Z): waits for a signal
  const sc = read(`/proc/${pid}/syscall`)?.trim().split(' ');
  if (!sc || sc[0] === 'running') return 'busy';
  const nr = Number(sc[0]);
  if (READ.has(nr) || WAIT_CHILD.has(nr)) return 'idle';
  const poll = POLLS[nr];
  if (!poll) return 'timer'; // nanosleep, futex, ...: it may wake by itself
  const arg = BigInt(sc[1 + poll[1]] ?? '0');
  if (poll[0] === 'int') {
    const ms = Number(BigInt.asIntN(32, arg));
    return ms < 0 || ms >= LONG_TIMER_MS ? 'idle' : 'timer';
  }
  if (arg === 0n) return 'idle';
  const ms = timeoutAt(pid, arg, poll[0]);
  return ms === undefined || ms < LONG_TIMER_MS ? 'timer' : 'idle';
}

/** Reads a struct timespec/timeval from the process (same user, our descendant). */
function timeoutAt(pid: number, address: bigint, kind: 'timespec' | 'timeval'): number | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(`/proc/${pid}/mem`, 'r');
    const buf = Buffer.alloc(16);
    if (readSync(fd, buf, 0, 16, address) !== 16) return undefined;
    const sec = Number(buf.readBigInt64LE(0));
    const frac = Number(buf.readBigInt64LE(8));
    return sec * 1000 + (kind === 'timespec' ? frac / 1e6 : frac / 1e3);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** CPU time (ns) the processes under `rootPid` have used: it moves whenever one of them ran (it read the input). */
export function cpuTime(rootPid: number): number {
  return sumOver(rootPid, (pid) => Number(read(`/proc/${pid}/schedstat`)?.split(' ')[0]) || 0);
}

/**
 * Bytes the live processes under `rootPid` have written (/proc/PID/io wchar). What a
 * program wrote to the terminal reaches the PTY master through the kernel a little
 * later: while fewer bytes arrived than were written, output may still be on its way.
 */
export function bytesWritten(rootPid: number): number {
  return sumOver(rootPid, (pid) => Number(/wchar: (\d+)/.exec(read(`/proc/${pid}/io`) ?? '')?.[1]) || 0);
}

function sumOver(rootPid: number, value: (pid: number) => number): number {
  let total = 0;
  const stack = [rootPid];
  const seen = new Set<number>();
  while (stack.length) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    total += value(pid);
    stack.push(...children(pid));
  }
  return total;
}
