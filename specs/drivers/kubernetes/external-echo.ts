/** The outbound-NAT target: an HTTP server on the harness host that answers with the client address it saw. */
import { createSocket } from 'node:dgram';
import { createServer, type Server } from 'node:http';
import { isIPv6 } from 'node:net';
import { hostname } from 'node:os';
import type { CommandRunner } from '../../../lab/exec/command-runner.ts';
import { InfrastructureError } from '../../model/infrastructure-error.ts';

/** `IP:PORT` as netexec's /clientip prints it (IPv6 in brackets). */
function hostPort(address: string, port: number): string {
  return isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`;
}

/**
 * The host's source address on its route to `nodeIp`: `ip route get` (sends no traffic), else,
 * where there is no iproute2 (macOS), the address the kernel binds a UDP socket connected to the
 * node to (connect sends nothing either).
 */
export async function routeSourceAddress(runner: CommandRunner, nodeIp: string): Promise<string> {
  let stdout: string;
  try {
    stdout = (await runner.run('ip', ['route', 'get', nodeIp], { timeoutMs: 5000 })).stdout;
  } catch (error) {
    return socketSourceAddress(nodeIp, error);
  }
  const src = /\bsrc\s+(\S+)/.exec(stdout)?.[1];
  if (src === undefined) {
    throw new InfrastructureError(`no source address on the route to ${nodeIp}: ${stdout.trim()}`, {
      hint: 'set EXTERNAL_ECHO_ADDRESS to an address of this host that the nodes can reach',
    });
  }
  return src;
}

/** The local address of a UDP socket connected to `nodeIp` (any port: nothing is sent). */
async function socketSourceAddress(nodeIp: string, ipError: unknown): Promise<string> {
  const socket = createSocket(isIPv6(nodeIp) ? 'udp6' : 'udp4');
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.connect(9, nodeIp, resolve);
    });
    return socket.address().address;
  } catch (error) {
    const ip = ipError instanceof Error ? ipError.message.split('\n')[0] : String(ipError);
    throw new InfrastructureError(
      `no source address on the route to ${nodeIp}: \`ip route get\` failed (${ip}), and so did a UDP socket (${error instanceof Error ? error.message : String(error)})`,
      {
        cause: error,
        hint: 'set EXTERNAL_ECHO_ADDRESS to an address of this host that the nodes can reach',
      },
    );
  } finally {
    socket.close();
  }
}

export class ExternalEcho implements AsyncDisposable {
  private constructor(
    private readonly server: Server,
    readonly address: string,
    readonly port: number,
  ) {}

  /** What its /hostname answers: this host's name. */
  readonly hostname = hostname();

  /** Listens on address:port (port 0 picks a free one); answers /clientip, /hostname, /healthz. */
  static async start(address: string, port: number): Promise<ExternalEcho> {
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://echo').pathname;
      const [status, body] =
        path === '/clientip'
          ? [200, hostPort(req.socket.remoteAddress ?? '', req.socket.remotePort ?? 0)]
          : path === '/hostname'
            ? [200, hostname()]
            : path === '/healthz'
              ? [200, 'ok']
              : [404, 'not found'];
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      res.end(body);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) => {
        reject(
          new InfrastructureError(
            `the external echo cannot listen on ${hostPort(address, port)}: ${error.message}`,
            {
              cause: error,
              hint: 'set EXTERNAL_ECHO_ADDRESS / EXTERNAL_ECHO_PORT',
            },
          ),
        );
      });
      server.listen(port, address, resolve);
    });
    const bound = server.address();
    return new ExternalEcho(
      server,
      address,
      typeof bound === 'object' && bound !== null ? bound.port : port,
    );
  }

  /** Stops listening and drops open connections; idempotent. */
  async stop(): Promise<void> {
    if (!this.server.listening) return;
    await new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
      this.server.closeAllConnections();
    });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}
