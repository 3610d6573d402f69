/** How a ProbeRequest becomes arguments of the project's probe program (lab/cluster/workload/probe.mjs). */
import { InfrastructureError } from '../model/infrastructure-error.ts';
import type { ProbeRequest } from '../model/lab-driver.ts';

/**
 * Refuses a sweep that expects no endpoint, which would pass without a request: the Service's
 * endpoints came back empty (pods not ready, a selector that matches none), a fault of the lab.
 */
export function requireEndpoints(request: Extract<ProbeRequest, { kind: 'endpoints' }>): void {
  if (request.expect.length > 0) return;
  throw new InfrastructureError(
    `Service ${request.service} (${request.base}) has no endpoint to expect: a sweep of none would pass without a request`,
    { hint: 'are its pods ready, and does its selector match their labels?' },
  );
}

/** The probe.mjs arguments for a request. */
export function probeArgs(request: ProbeRequest, timeoutMs: number): string[] {
  const timeout = ['--timeout-ms', String(timeoutMs)];
  switch (request.kind) {
    case 'http':
      return ['http', request.url, ...timeout];
    case 'dns':
    case 'dns-tcp':
      return [request.kind, request.name, ...timeout];
    case 'tcp':
      return ['tcp', request.host, String(request.port), ...timeout];
    case 'icmp':
      return ['icmp', request.host, ...timeout];
    case 'udp':
      return ['udp', request.host, String(request.port), request.message, ...timeout];
    case 'endpoints':
      requireEndpoints(request);
      return [
        'endpoints',
        request.base,
        '--expect',
        request.expect.join(','),
        '--max-requests',
        String(request.maxRequests),
        ...(request.minRequests === undefined
          ? []
          : ['--min-requests', String(request.minRequests)]),
        ...timeout,
      ];
    case 'perf':
      return [
        'perf',
        request.measure,
        request.base,
        '--duration-ms',
        String(request.durationMs),
        ...(request.rateMbps === undefined ? [] : ['--rate-mbps', String(request.rateMbps)]),
        '--timeout-ms',
        String(probeProgramMs(request, timeoutMs)),
      ];
  }
}

/**
 * How long probe.mjs itself may take for `request`. A sweep's timeoutMs bounds each request, but
 * the sweep ends at its first failing one: at most one request waits out timeoutMs, and the
 * answered ones (milliseconds each) fit in a second timeoutMs.
 */
export function probeProgramMs(request: ProbeRequest, timeoutMs: number): number {
  if (request.kind === 'perf') return request.durationMs + timeoutMs;
  return request.kind === 'endpoints' ? timeoutMs * 2 : timeoutMs;
}
