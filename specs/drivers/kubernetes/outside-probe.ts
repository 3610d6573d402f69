/**
 * Probes from the harness host itself (NodePort cells): the probes of probes.mjs, run in this
 * process as prober.mjs runs them in a pod, so both classify errors and time out alike.
 */
import { runProbe } from '../../../lab/cluster/workload/probes.mjs';
import type { ProbeReply, ProbeRequest } from '../../model/lab-driver.ts';
import { probeArgs } from '../probe-args.ts';

/**
 * Runs one probe from this host; `timeoutMs` bounds all of it (lookup, connect, body), or each
 * request of an endpoints sweep.
 */
export async function probeFromHost(request: ProbeRequest, timeoutMs: number): Promise<ProbeReply> {
  const reply: Record<string, unknown> = {
    ...(await runProbe(probeArgs(request, timeoutMs))).line,
  };
  // What the probe was is the suite's own to record; how long it took is the probe's measure.
  delete reply.kind;
  return reply as unknown as ProbeReply;
}
