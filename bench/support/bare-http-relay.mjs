// The floor for any HTTP proxy process in the path: forwards each request and
// streams the response back, nothing else. bench/http-proxy.mjs measures it
// beside the recording proxy, so tapedeck's own cost can be told from the hop.
//   node bare-http-relay.mjs UPSTREAM_PORT
import { Agent, createServer, request } from 'node:http';

const upstream = Number(process.argv[2]);
const agent = new Agent({ keepAlive: true });
const server = createServer((req, res) => {
  const up = request({ host: '127.0.0.1', port: upstream, method: req.method, path: req.url, headers: { ...req.headers, host: `127.0.0.1:${upstream}` }, agent }, (ur) => {
    res.writeHead(ur.statusCode, ur.headers);
    ur.pipe(res);
  });
  req.pipe(up);
});
server.listen(0, '127.0.0.1', () => console.error(`listening on http://127.0.0.1:${server.address().port}`));
