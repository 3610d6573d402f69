// @ts-check
/**
 * Pod workload: the subset of Kubernetes agnhost `netexec` the conformance suite talks to.
 *
 *   node lab/cluster/workload/netexec.mjs [--http-port 8080] [--udp-port 8081] [--hostname NAME]
 *                                 [--bind 0.0.0.0]
 *
 * Prints `listening http=PORT udp=PORT` once both sockets are bound (port 0 picks a free one).
 */

import { Buffer } from 'node:buffer';
import { createSocket } from 'node:dgram';
import { createServer } from 'node:http';
import { isIPv6 } from 'node:net';
import { hostname as osHostname } from 'node:os';
import { URL } from 'node:url';
import {
  UsageError,
  describeError,
  exitWith,
  formatHostPort,
  parseCommandLine,
  parseIntInRange,
  parseOrExit,
} from './args.mjs';
import { UdpCounter, servePerf } from './perf-server.mjs';

/** Largest `/big` body; enough to cross any MTU while keeping a pod's memory small. */
const MAX_BIG_BYTES = 1_000_000;

const USAGE =
  'usage: netexec.mjs [--http-port 8080] [--udp-port 8081] [--hostname NAME] [--bind 0.0.0.0]';

/**
 * @typedef {object} NetexecOptions
 * @property {number} httpPort
 * @property {number} udpPort
 * @property {string} hostname what `/hostname` and the UDP `hostname` command answer
 * @property {string} bind address both sockets listen on
 */

/**
 * @param {readonly string[]} argv
 * @returns {NetexecOptions}
 */
function parseOptions(argv) {
  const { positionals, flags } = parseCommandLine(argv, [
    'http-port',
    'udp-port',
    'hostname',
    'bind',
  ]);
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  return {
    httpPort: parseIntInRange(flags.get('http-port') ?? '8080', '--http-port', 0, 65535),
    udpPort: parseIntInRange(flags.get('udp-port') ?? '8081', '--udp-port', 0, 65535),
    hostname: flags.get('hostname') ?? osHostname(),
    bind: flags.get('bind') ?? '0.0.0.0',
  };
}

/**
 * @param {import('node:http').ServerResponse} res
 * @param {[number, string | Buffer]} answer
 */
function reply(res, [status, body]) {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * Picks the status and body for one request; bodies carry no trailing newline, as agnhost's.
 * @param {import('node:http').IncomingMessage} req
 * @param {string} hostname
 * @returns {[number, string | Buffer]}
 */
function route(req, hostname) {
  let url;
  try {
    url = new URL(req.url ?? '/', 'http://netexec');
  } catch {
    return [400, 'bad request target'];
  }
  switch (url.pathname) {
    case '/hostname':
      return [200, hostname];
    case '/clientip':
      return [200, peer(req.socket.remoteAddress, req.socket.remotePort)];
    case '/echo':
      return [200, url.searchParams.get('msg') ?? ''];
    case '/healthz':
      return [200, 'ok'];
    case '/big': {
      const bytes = url.searchParams.get('bytes') ?? '';
      if (!/^\d+$/.test(bytes) || Number(bytes) > MAX_BIG_BYTES) {
        return [400, `bytes must be an integer from 0 to ${MAX_BIG_BYTES}`];
      }
      return [200, Buffer.alloc(Number(bytes), 'x')];
    }
    default:
      return [404, 'not found'];
  }
}

/**
 * @param {string | undefined} address
 * @param {number | undefined} port
 * @returns {string}
 */
function peer(address, port) {
  return formatHostPort(address ?? '', port ?? 0);
}

/**
 * Answers one UDP command, or undefined for commands agnhost would not answer either.
 * @param {string} command
 * @param {string} hostname
 * @param {import('node:dgram').RemoteInfo} from
 * @returns {string | undefined}
 */
function udpReply(command, hostname, from) {
  if (command === 'hostname') return hostname;
  if (command === 'clientip') return peer(from.address, from.port);
  if (command === 'echo' || command.startsWith('echo ')) return command.slice('echo '.length);
  return undefined;
}

/**
 * @param {import('node:http').Server} server
 * @param {number} port
 * @param {string} bind
 * @returns {Promise<number>} the bound port
 */
function listenHttp(server, port, bind) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, bind, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

/**
 * @param {import('node:dgram').Socket} socket
 * @param {number} port
 * @param {string} bind
 * @returns {Promise<number>} the bound port
 */
function bindUdp(socket, port, bind) {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, bind, () => {
      socket.off('error', reject);
      resolve(socket.address().port);
    });
  });
}

async function main() {
  const options = parseOrExit('netexec', USAGE, () => parseOptions(process.argv.slice(2)));
  const { hostname, bind } = options;
  /** @type {(what: string, port: number) => (err: unknown) => never} */
  const cannotBind = (what, port) => (err) =>
    exitWith(
      'netexec',
      `cannot bind ${what} on ${formatHostPort(bind, port)}: ${describeError(err)}`,
      1,
    );

  const http = createServer((req, res) => {
    // The perf mode's streams; everything else is agnhost's subset.
    const url = URL.canParse(req.url ?? '/', 'http://netexec')
      ? new URL(req.url ?? '/', 'http://netexec')
      : undefined;
    if (url !== undefined && servePerf(req, res, url, hostname)) return;
    reply(res, route(req, hostname));
  });
  const counter = new UdpCounter();
  const udp = createSocket({ type: isIPv6(bind) ? 'udp6' : 'udp4' });
  for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT'])) {
    process.once(signal, () => {
      http.closeAllConnections();
      http.close();
      udp.close();
      process.exit(0);
    });
  }

  const httpPort = await listenHttp(http, options.httpPort, bind).catch(
    cannotBind('http', options.httpPort),
  );
  const udpPort = await bindUdp(udp, options.udpPort, bind).catch(
    cannotBind('udp', options.udpPort),
  );

  udp.on('message', (message, from) => {
    if (UdpCounter.owns(message)) {
      const counted = counter.handle(message, hostname);
      if (counted !== undefined) udp.send(counted, from.port, from.address);
      return;
    }
    const answer = udpReply(message.toString('utf8').trim(), hostname, from);
    if (answer !== undefined) udp.send(answer, from.port, from.address);
  });
  // A failed send to one peer must not take the pod's server down.
  udp.on('error', (err) => process.stderr.write(`netexec: udp: ${describeError(err)}\n`));

  process.stdout.write(`listening http=${httpPort} udp=${udpPort}\n`);
}

await main();
