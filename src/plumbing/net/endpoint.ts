import { chmodSync, lstatSync, mkdtempSync, rmSync, statSync, unlinkSync } from 'node:fs';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { TapedeckError, usageError } from '../../core/diagnostics/errors.js';
import { lazyPackage } from '../../core/lazy-package.js';

// node:net only once a socket is opened: a stdio command that parses an endpoint option does not load it.
const net = lazyPackage<typeof import('node:net')>('node:net');

/** Where a transport listens or connects: a TCP host and port, or a Unix socket path. */
export type Endpoint = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string };

/**
 * `--listen` for HTTP: HOST:PORT, [V6]:PORT, :PORT or PORT. A bare port is
 * loopback: nothing listens beyond this machine unless the address says so.
 */
export function parseHostPort(spec: string, flag = '--listen'): Endpoint {
  const m = /^(?:(\[[^\]]+\]|[^:]*):)?(\d{1,5})$/.exec(spec.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw usageError(`${flag} expects HOST:PORT (or a port), got ${JSON.stringify(spec)}`);
  const host = (m[1] ?? '').replace(/^\[|\]$/g, '') || '127.0.0.1';
  return { kind: 'tcp', host, port };
}

/** `--upstream`/`--url`: http://HOST:PORT[/base] or unix:PATH. */
export function parseUpstream(spec: string, flag = '--upstream'): Endpoint & { base?: string } {
  if (spec.startsWith('unix:')) return { kind: 'unix', path: spec.slice(5) };
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    throw usageError(`${flag} expects http://HOST:PORT or unix:PATH, got ${JSON.stringify(spec)}`);
  }
  if (url.protocol !== 'http:') throw usageError(`${flag}: only http:// and unix: are supported, got ${JSON.stringify(spec)}`);
  const base = url.pathname.replace(/\/$/, '');
  return { kind: 'tcp', host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80), base: base || undefined };
}

export function describeEndpoint(e: Endpoint): string {
  return e.kind === 'unix' ? `unix:${e.path}` : `http://${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`;
}

/** A port nothing listens on right now (the kernel's pick on loopback). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net().createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A socket path in a fresh 0700 directory of its own; the cleanup removes both. */
export function privateSocketPath(name = 'tapedeck.sock'): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-sock-'));
  return { path: join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Binds a Unix socket safely: its directory must not be writable by others
 * (else anyone could swap the file), a stale socket is unlinked first, the
 * socket is created 0600 (umask held during the bind) and unlinked on close.
 */
export async function listenUnix(server: Server, path: string): Promise<() => void> {
  const dir = dirname(path);
  let mode: number;
  try {
    mode = statSync(dir).mode;
  } catch {
    throw new TapedeckError('TD2011', `cannot listen on ${path}: directory ${dir} does not exist`);
  }
  if ((mode & 0o002) !== 0) {
    throw new TapedeckError('TD2011', `cannot listen on ${path}: ${dir} is world-writable; use a directory only you can write to`);
  }
  unlinkSocket(path);
  const previous = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    throw new TapedeckError('TD2011', `cannot listen on ${path}: ${(err as Error).message}`);
  } finally {
    process.umask(previous);
  }
  chmodSync(path, 0o600);
  const unlink = () => unlinkSocket(path);
  server.once('close', unlink);
  process.once('exit', unlink);
  return unlink;
}

/** Binds a TCP listener; a taken port or a foreign address is exit 2 naming it. Returns the real port. */
export async function listenTcp(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new TapedeckError('TD2011', `cannot listen on ${host}:${port}: ${err.code === 'EADDRINUSE' ? 'address in use' : err.code === 'EADDRNOTAVAIL' ? 'not an address of this machine' : err.message}`)),
    );
    server.listen(port, host, () => resolve());
  });
  return (server.address() as { port: number }).port;
}

/** Removes a socket file, and only a socket (never a regular file someone named by mistake). */
function unlinkSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    /* not there */
  }
}

/** Resolves once something accepts connections at `e`; rejects when `gaveUp()` says so. */
export async function waitUntilAccepting(e: Endpoint, gaveUp: () => string | undefined, timeoutMs = 15_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = e.kind === 'unix' ? net().connect(e.path) : net().connect(e.port, e.host);
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    const reason = gaveUp();
    if (reason) throw new TapedeckError('TD2003', reason);
    if (performance.now() > deadline) throw new TapedeckError('TD2003', `nothing accepted connections at ${describeEndpoint(e)} within ${timeoutMs} ms`);
    // Polling a condition (is it accepting yet?), not sleeping for a result.
    await new Promise((r) => setTimeout(r, 20));
  }
}
