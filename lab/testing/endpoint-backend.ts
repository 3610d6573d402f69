/**
 * Test support: one backend of a Service as the endpoints probe sees it, on 127.0.0.1: /hostname
 * answers its name, /clientip the peer as agnhost shows it, with faults on demand.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BackendFaults {
  /** Each answer comes this late. */
  delayMs?: number;
  /** Connections (counting from 1) whose requests are never answered. */
  silentOn?: number[];
  /** Paths answered 404. */
  missing?: string[];
  /** Every answer says `Connection: close`. */
  closeEach?: boolean;
  /** Paths answered with this status and their usual body (a 3xx is no success either). */
  statusOf?: Record<string, number>;
}

/** A started backend; `close()` also drops connections a silent request holds. */
export interface EndpointBackend {
  /** `http://127.0.0.1:PORT` */
  base: string;
  /** Connections the backend still has open. */
  openConnections(): Promise<number>;
  close(): void;
}

export async function startEndpointBackend(
  name: string,
  faults: BackendFaults = {},
): Promise<EndpointBackend> {
  const { delayMs = 0, silentOn = [], missing = [], closeEach = false, statusOf = {} } = faults;
  let connections = 0;
  const numbers = new WeakMap<object, number>();
  const server: Server = createServer((req, res) => {
    if (silentOn.includes(numbers.get(req.socket) ?? 0)) return;
    const path = req.url ?? '/';
    const { remoteAddress, remotePort } = req.socket;
    const body = path === '/clientip' ? `${remoteAddress}:${remotePort}` : name;
    if (closeEach) res.setHeader('connection', 'close');
    setTimeout(() => {
      if (missing.includes(path)) res.writeHead(404).end('not found');
      else res.writeHead(statusOf[path] ?? 200).end(body);
    }, delayMs);
  });
  server.on('connection', (socket) => numbers.set(socket, ++connections));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    openConnections: () =>
      new Promise((resolve, reject) => {
        server.getConnections((err, count) => {
          if (err) reject(err);
          else resolve(count);
        });
      }),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
