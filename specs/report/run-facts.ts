/**
 * What a run says of the lab beyond its name, provider, Kubernetes and CNI, in the order every
 * report shows it: one list, so a new fact reaches JUnit, the summary and matrix.html at once.
 */
import type { RunInfo } from '../../lab/contracts/results-file.ts';

export interface RunFact {
  /** JUnit's property name (`cluster-dns`). */
  key: string;
  /** The summary's and matrix.html's label (`cluster DNS`). */
  label: string;
  value: string;
}

const NAT: Record<NonNullable<RunInfo['outboundNat']>, string> = {
  node: "node (the far end must see the node's address)",
  preserve: "preserve (the far end must see the pod's own address)",
  report: 'report (not assumed: each cell names the address the far end saw)',
};

/** The optional facts the run states; a fact the lab does not state is left out. */
export function runFacts(run: RunInfo): RunFact[] {
  const facts: (RunFact | undefined)[] = [
    run.clusterDns === undefined
      ? undefined
      : { key: 'cluster-dns', label: 'cluster DNS', value: run.clusterDns },
    run.windowsDsr === undefined
      ? undefined
      : { key: 'windows-dsr', label: 'windows DSR', value: run.windowsDsr ? 'on' : 'off' },
    run.outboundNat === undefined
      ? undefined
      : { key: 'outbound-nat', label: 'outbound NAT', value: NAT[run.outboundNat] },
  ];
  return facts.filter((f): f is RunFact => f !== undefined);
}
