/** What the far end saw of a client, named: the pod's own address, its node's, or another. */
import type { ProbeReply } from '../model/lab-driver.ts';
import type { Check } from '../model/cell-plan.ts';
import { Outcome } from '../../lab/contracts/results-file.ts';

/** The address in a /clientip answer (`ADDRESS:PORT`, `[ADDRESS]:PORT` or a bare address). */
export function seenAddress(reply: ProbeReply): string {
  return (reply.body ?? '').trim().replace(/^\[?([^\]]*?)\]?:\d+$/, '$1');
}

/** Ok whatever address the far end saw (the path works); the detail says whose it was. */
export function judgeSourceReported(
  reply: ProbeReply,
  check: Extract<Check, { kind: 'source-reported' }>,
): { outcome: Outcome; detail: string } {
  const seen = seenAddress(reply);
  if (seen === '')
    return { outcome: Outcome.WrongAnswer, detail: 'the far end answered without an address' };
  const what =
    seen === check.pod
      ? 'the pod IP: not NATed'
      : seen === check.node
        ? 'the node IP: NATed to the node'
        : 'neither the pod IP nor the node IP: NATed on the way (a NAT gateway, a proxy?)';
  return { outcome: Outcome.Ok, detail: `far end saw ${seen}, ${what}` };
}
