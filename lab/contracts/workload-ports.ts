/** The ports of the netexec every driver runs in every pod and on every node's own network. */

/** netexec's HTTP port in every pod: /hostname, /clientip, /echo, /healthz. */
export const NETEXEC_HTTP_PORT = 8080;
/** netexec's UDP port: it answers `hostname`, `clientip` and `echo …` datagrams. */
export const NETEXEC_UDP_PORT = 8081;
/** The netexec on every node's own network (a host-network pod): clear of pods' ports and NodePorts. */
export const HOST_NETEXEC_PORTS = { http: 8085, udp: 8086 } as const;
