// @ts-check
/**
 * Node workload of emulated labs: a TLS server standing in for the API server at the kubernetes
 * Service's endpoint (the control plane's address and port), so that pods reach it as they reach
 * kube-apiserver: TCP, a TLS handshake, an HTTP answer. It is not kube-apiserver: every request
 * gets 403 with a Status object like the one kube-apiserver gives a client without credentials,
 * whose message says it is the emulated stand-in.
 *
 *   node lab/cluster/workload/apiserver-standin.mjs --cert FILE --key FILE [--bind 0.0.0.0] [--port 6443]
 *
 * Prints `listening apiserver=ADDR:PORT` once it listens (port 0 picks a free one).
 */

import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import {
  UsageError,
  describeError,
  exitWith,
  formatHostPort,
  parseCommandLine,
  parseIntInRange,
  parseOrExit,
} from './args.mjs';

const USAGE = 'usage: apiserver-standin.mjs --cert FILE --key FILE [--bind 0.0.0.0] [--port 6443]';

/**
 * kube-apiserver's answer to an unauthenticated request it does not allow, marked as the stand-in's.
 * @param {string} method
 * @param {string} path
 * @returns {string}
 */
function forbidden(method, path) {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `forbidden: User "system:anonymous" cannot ${method.toLowerCase()} path "${path}" (hybrid-lab's emulated API server stand-in, not kube-apiserver)`,
    reason: 'Forbidden',
    details: {},
    code: 403,
  });
}

function main() {
  const argv = process.argv.slice(2);
  const options = parseOrExit('apiserver-standin', USAGE, () => {
    const { positionals, flags } = parseCommandLine(argv, ['cert', 'key', 'bind', 'port']);
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const cert = flags.get('cert');
    const key = flags.get('key');
    if (cert === undefined || key === undefined)
      throw new UsageError('--cert and --key are required');
    return {
      cert,
      key,
      bind: flags.get('bind') ?? '0.0.0.0',
      port: parseIntInRange(flags.get('port') ?? '6443', '--port', 0, 65535),
    };
  });
  /** @type {{ cert: Buffer, key: Buffer }} */
  let tls;
  try {
    tls = { cert: readFileSync(options.cert), key: readFileSync(options.key) };
  } catch (err) {
    exitWith('apiserver-standin', `cannot read the certificate or key: ${describeError(err)}`, 1);
  }
  const server = createServer(tls, (req, res) => {
    res.writeHead(403, { 'Content-Type': 'application/json' });
    res.end(forbidden(req.method ?? 'GET', new URL(req.url ?? '/', 'https://x').pathname));
  });
  server.on('tlsClientError', () => {}); // a client that gives up mid-handshake is its business
  for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT'])) {
    process.once(signal, () => {
      server.close();
      process.exit(0);
    });
  }
  server.once('error', (err) =>
    exitWith(
      'apiserver-standin',
      `cannot listen on ${formatHostPort(options.bind, options.port)}: ${err.message}`,
      1,
    ),
  );
  server.listen(options.port, options.bind, () => {
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : options.port;
    process.stdout.write(`listening apiserver=${formatHostPort(options.bind, port)}\n`);
  });
}

main();
