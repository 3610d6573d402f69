/** How a ProbeRequest becomes arguments of the project's probe program (lab/cluster/workload/probe.mjs). */
import type { ProbeRequest } from '../model/lab-driver.ts';

/** The probe.mjs arguments for a request. */
export function probeArgs(request: ProbeRequest, timeoutMs: number): string[] {
  const timeout = ['--timeout-ms', String(timeoutMs)];
  switch (request.kind) {
    case 'http':
      return ['http', request.url, ...timeout];
    case 'dns':
      return ['dns', request.name, ...timeout];
    case 'tcp':
      return ['tcp', request.host, String(request.port), ...timeout];
  }
}
