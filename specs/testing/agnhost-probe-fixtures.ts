/**
 * Shared fixtures of the agnhost probe tests: an exec result, and one request of each kind (typed
 * as that kind, as each was narrowed when it was declared in the test file itself).
 */
import type { ExecResult } from '../drivers/kubernetes/exec-in-pod.ts';
import type { ProbeRequest } from '../model/lab-driver.ts';
import { exitStatus } from './kube-recorded-objects.ts';

export const ran = (exitCode: number, stdout: string, stderr = ''): ExecResult => ({
  exitCode,
  stdout,
  stderr,
  status: exitStatus(exitCode),
});
export const http: Extract<ProbeRequest, { kind: 'http' }> = {
  kind: 'http',
  url: 'http://10.244.2.7:8080/clientip',
};
export const dns: Extract<ProbeRequest, { kind: 'dns' }> = { kind: 'dns', name: 'web-linux' };
export const tcp: Extract<ProbeRequest, { kind: 'tcp' }> = {
  kind: 'tcp',
  host: '10.244.2.7',
  port: 8080,
};
export const endpoints: Extract<ProbeRequest, { kind: 'endpoints' }> = {
  kind: 'endpoints',
  base: 'http://10.96.101.21:80',
  service: 'web-linux',
  expect: ['netexec-lin1-a', 'netexec-lin2-a'],
  maxRequests: 8,
};
