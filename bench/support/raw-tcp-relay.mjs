// The floor for any Node process in an HTTP path: a TCP relay that pipes bytes
// both ways as they arrive (Nagle off) and parses nothing. bench/http-proxy.mjs
// measures it beside the recording proxy.
//   node raw-tcp-relay.mjs UPSTREAM_PORT
import { connect, createServer } from 'node:net';

const upstream = Number(process.argv[2]);
const server = createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
  const up = connect({ host: '127.0.0.1', port: upstream, noDelay: true });
  client.on('data', (d) => up.write(d));
  up.on('data', (d) => client.write(d));
  client.on('end', () => up.end());
  up.on('close', () => client.end());
  client.on('error', () => up.destroy());
  up.on('error', () => client.destroy());
});
server.listen(0, '127.0.0.1', () => console.error(`listening on http://127.0.0.1:${server.address().port}`));
