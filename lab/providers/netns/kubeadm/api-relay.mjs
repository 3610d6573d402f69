// Relays TCP connections across network namespaces through a unix socket (the filesystem is
// shared, the network is not). Two halves, each a process of its own:
//   node api-relay.mjs tcp-to-unix 127.0.0.1:0 SOCKET     on this host: the harness's end
//   node api-relay.mjs unix-to-tcp SOCKET 10.0.0.10:6443   in the node's network namespace
// Each prints "listening <address>" once it accepts connections.
import { rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';

const [mode = '', from = '', to = ''] = process.argv.slice(2);
/** @param {string} text `HOST:PORT` */
const hostPort = (text) => {
  const at = text.lastIndexOf(':');
  return { host: text.slice(0, at), port: Number(text.slice(at + 1)) };
};
if (!['tcp-to-unix', 'unix-to-tcp'].includes(mode) || from === '' || to === '') {
  process.stderr.write(
    'usage: api-relay.mjs tcp-to-unix HOST:PORT SOCKET | unix-to-tcp SOCKET HOST:PORT\n',
  );
  process.exit(2);
}

const server = createServer({ pauseOnConnect: true }, (client) => {
  const upstream =
    mode === 'tcp-to-unix' ? createConnection({ path: to }) : createConnection(hostPort(to));
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', close).on('close', close);
  upstream.on('error', close).on('close', close);
  upstream.once('connect', () => {
    client.pipe(upstream).pipe(client);
    client.resume();
  });
});
server.on('error', (error) => {
  process.stderr.write(`api-relay: ${error.message}\n`);
  process.exit(1);
});
const done = () => server.close(() => process.exit(0));
process.on('SIGTERM', done).on('SIGINT', done);
if (mode === 'tcp-to-unix') {
  server.listen(hostPort(from), () => {
    const bound = /** @type {import('node:net').AddressInfo} */ (server.address());
    process.stdout.write(`listening ${bound.address}:${bound.port}\n`);
  });
} else {
  rmSync(from, { force: true });
  server.listen(from, () => process.stdout.write(`listening ${from}\n`));
}
