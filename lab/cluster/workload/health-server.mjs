// @ts-check
/**
 * Node workload: kube-proxy's health-check node ports, as its service health server
 * (pkg/proxy/healthcheck) serves them: one HTTP listener per LoadBalancer Service with
 * externalTrafficPolicy Local, on its healthCheckNodePort, answering any GET with 200 when the node
 * has endpoints of the Service and 503 when it has none, and a JSON body naming the Service and
 * that count.
 *
 *   node lab/cluster/workload/health-server.mjs --config FILE [--bind 0.0.0.0]
 *
 * FILE: {"services": [{"port": N, "namespace": "ns", "name": "svc", "localEndpoints": N}]}.
 * Prints `listening health=N` once every port listens; on SIGHUP re-reads FILE, opens and closes
 * listeners to match, and prints `reloaded health=N` (or keeps the old list and logs to stderr).
 */

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { UsageError, describeError, exitWith, parseCommandLine, parseOrExit } from './args.mjs';

const USAGE = 'usage: health-server.mjs --config FILE [--bind 0.0.0.0]';

/**
 * @typedef {object} HealthEntry
 * @property {number} port
 * @property {string} namespace
 * @property {string} name
 * @property {number} localEndpoints
 */

/**
 * Reads and checks the configuration; throws naming the file and what is wrong.
 * @param {string} file
 * @returns {Map<number, HealthEntry>}
 */
function loadConfig(file) {
  /** @type {unknown} */
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  const services =
    typeof raw === 'object' && raw !== null && 'services' in raw ? raw.services : undefined;
  if (!Array.isArray(services)) throw new Error(`${file}: expected {"services": [...]}`);
  /** @type {Map<number, HealthEntry>} */
  const byPort = new Map();
  for (const [i, entry] of /** @type {unknown[]} */ (services).entries()) {
    const { port, namespace, name, localEndpoints } = /** @type {Record<string, unknown>} */ (
      entry ?? {}
    );
    if (
      typeof port !== 'number' ||
      !Number.isInteger(port) ||
      port < 1 ||
      port > 65535 ||
      typeof namespace !== 'string' ||
      typeof name !== 'string' ||
      typeof localEndpoints !== 'number' ||
      !Number.isInteger(localEndpoints) ||
      localEndpoints < 0
    )
      throw new Error(`${file}: services[${i}] needs port, namespace, name, localEndpoints`);
    byPort.set(port, { port, namespace, name, localEndpoints });
  }
  return byPort;
}

/**
 * kube-proxy's answer: the status by the count, and the same JSON it writes.
 * @param {HealthEntry} entry
 * @returns {{ status: number, body: string }}
 */
function healthAnswer(entry) {
  const body = JSON.stringify(
    {
      service: { namespace: entry.namespace, name: entry.name },
      localEndpoints: entry.localEndpoints,
    },
    null,
    '\t',
  );
  return { status: entry.localEndpoints === 0 ? 503 : 200, body };
}

function main() {
  const argv = process.argv.slice(2);
  const { file, bind } = parseOrExit('health-server', USAGE, () => {
    const { positionals, flags } = parseCommandLine(argv, ['config', 'bind']);
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const config = flags.get('config');
    if (config === undefined) throw new UsageError('--config is required');
    return { file: config, bind: flags.get('bind') ?? '0.0.0.0' };
  });

  /** @type {Map<number, HealthEntry>} */
  let entries = new Map();
  /** @type {Map<number, import('node:http').Server>} */
  const servers = new Map();

  /** @param {number} port @returns {Promise<void>} */
  const open = (port) =>
    new Promise((resolve, reject) => {
      const server = createServer((req, res) => {
        const entry = entries.get(port);
        if (entry === undefined) {
          res.destroy(); // closing: kube-proxy drops requests for a closed health check
          return;
        }
        const { status, body } = healthAnswer(entry);
        res.writeHead(status, {
          'Content-Type': 'application/json',
          'X-Content-Type-Options': 'nosniff',
        });
        res.end(body);
      });
      server.once('error', reject);
      server.listen(port, bind, () => {
        server.removeListener('error', reject);
        servers.set(port, server);
        resolve();
      });
    });

  /** Opens and closes listeners to match `entries`; a port that cannot listen is logged. */
  const apply = async () => {
    for (const [port, server] of servers) {
      if (!entries.has(port)) {
        server.close();
        servers.delete(port);
      }
    }
    for (const port of entries.keys()) {
      if (servers.has(port)) continue;
      await open(port).catch((/** @type {unknown} */ err) => {
        process.stderr.write(`health-server: port ${port}: ${describeError(err)}\n`);
      });
    }
  };

  try {
    entries = loadConfig(file);
  } catch (err) {
    exitWith('health-server', `cannot load ${file}: ${describeError(err)}`, 1);
  }
  process.on('SIGHUP', () => {
    let next;
    try {
      next = loadConfig(file);
    } catch (err) {
      process.stderr.write(`health-server: keeping the previous list: ${describeError(err)}\n`);
      return;
    }
    entries = next;
    void apply().then(() => process.stdout.write(`reloaded health=${servers.size}\n`));
  });
  for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT'])) {
    process.once(signal, () => process.exit(0));
  }
  // A node with no such Service has no listener: the server waits for one all the same.
  setInterval(() => undefined, 2 ** 30);
  void apply().then(() => process.stdout.write(`listening health=${servers.size}\n`));
}

main();
