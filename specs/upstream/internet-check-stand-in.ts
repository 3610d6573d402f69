/**
 * The offline stand-in for e2e.test's own Internet pre-check. Every `[sig-network] Networking`
 * spec of v1.20.2 starts with `http.Get("http://google.com")` from the e2e.test process itself
 * (test/e2e/network/networking.go, BeforeEach: "not really a test of kubernetes in any way"); on
 * an offline lab that fails every one of them before it touches the cluster. e2e.test runs with
 * HTTP_PROXY pointing here: `http://google.com/` gets a 200 saying what it is, anything else a 502,
 * and the lab's own networks bypass the proxy (NO_PROXY), so no spec's traffic passes through it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The one URL answered, as e2e.test's pre-check asks for it. */
export const PRE_CHECK_URL = 'http://google.com/';

export interface StandInCounts {
  /** Pre-checks answered. */
  answered: number;
  /** Other requests refused (each a spec that tried to leave the lab through the proxy). */
  refused: string[];
}

export class InternetCheckStandIn implements AsyncDisposable {
  #stopped: Promise<void> | undefined;

  private constructor(
    private readonly server: Server,
    /** `http://127.0.0.1:<port>`, for HTTP_PROXY. */
    readonly url: string,
    readonly counts: StandInCounts,
  ) {}

  /** Listens on this host's loopback, on a free port. */
  static async start(): Promise<InternetCheckStandIn> {
    const counts: StandInCounts = { answered: 0, refused: [] };
    const server = createServer((req, res) => {
      const url = req.url ?? '';
      if (req.method === 'GET' && (url === PRE_CHECK_URL || url === 'http://google.com')) {
        counts.answered += 1;
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(
          "hybrid-lab: offline stand-in for e2e.test's Internet pre-check; not the Internet\n",
        );
        return;
      }
      counts.refused.push(`${req.method ?? '?'} ${url}`);
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`hybrid-lab: the lab is offline; only ${PRE_CHECK_URL} is answered here\n`);
    });
    // HTTPS through the proxy (CONNECT) is refused too: nothing but the pre-check gets out.
    server.on('connect', (req, socket) => {
      counts.refused.push(`CONNECT ${req.url ?? ''}`);
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject).listen(0, '127.0.0.1', () => {
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    return new InternetCheckStandIn(server, `http://127.0.0.1:${port}`, counts);
  }

  /** HTTP_PROXY to this stand-in, NO_PROXY for the loopback and every network in `direct`. */
  env(direct: readonly string[]): Record<string, string> {
    const noProxy = ['localhost', '127.0.0.1', ...direct].join(',');
    return { HTTP_PROXY: this.url, http_proxy: this.url, NO_PROXY: noProxy, no_proxy: noProxy };
  }

  /** Idempotent. */
  stop(): Promise<void> {
    this.#stopped ??= new Promise<void>((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => {
        resolve();
      });
    });
    return this.#stopped;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}
