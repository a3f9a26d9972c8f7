// The HTTP and Unix-socket transports of the example agent server (seed 000,
// "Transport"). Each takes the server's line handler, so every transport
// speaks exactly the stdio wire format inside.
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { unlinkSync } from 'node:fs';
import { createInterface } from 'node:readline';

const MAX_BODY = 1 << 20;

function authorized(req, token) {
  if (token === undefined) return true;
  const m = /^bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  return m !== null && m[1].trim() === token;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** One request, one response stream, connection closed; a fresh session per POST. */
export function serveHttp(listen, token, handleLine, versionBody) {
  const at = listen.lastIndexOf(':');
  const host = at > 0 ? listen.slice(0, at).replace(/^\[|\]$/g, '') : '127.0.0.1';
  const port = Number(listen.slice(at + 1));
  const server = createServer(async (req, res) => {
    res.setHeader('Connection', 'close');
    const json = (status, body, headers = {}) => {
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      res.end(`${JSON.stringify(body)}\n`);
    };
    if (!authorized(req, token)) return json(401, { kind: 'error', message: 'unauthorized' }, { 'WWW-Authenticate': 'Bearer' });
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/v1/agent/version') return json(200, versionBody());
    if (req.method !== 'POST' || (path !== '/v1/agent' && path !== '/v1/agent/batch')) return json(404, { kind: 'error', message: `not found: ${req.method} ${path}` });
    let body;
    try {
      body = await readBody(req);
    } catch {
      return json(413, { kind: 'error', message: 'request body too large' });
    }
    res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
    const out = (text) => res.write(text);
    const lines = path === '/v1/agent' ? [body] : body.split('\n');
    for (const line of lines) {
      const outcome = handleLine(line, out);
      if (outcome === 'hang') return; // never answered, as the knob asks
      if (outcome === 'halt') break;
    }
    res.end();
  });
  server.listen(port, host);
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** The stdio wire format per connection; the socket unlinked on bind and on exit. */
export function serveUnix(path, handleLine) {
  const unlink = () => {
    try {
      unlinkSync(path);
    } catch {
      /* not there */
    }
  };
  unlink();
  const server = createNetServer((socket) => {
    socket.on('error', () => {});
    const rl = createInterface({ input: socket, crlfDelay: Infinity });
    const out = (text) => socket.write(text);
    rl.on('line', (line) => {
      if (handleLine(line, out) === 'halt') {
        rl.close();
        socket.end();
      }
    });
    rl.on('close', () => socket.end());
  });
  server.listen(path);
  const stop = () => {
    unlink();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('exit', unlink);
}
