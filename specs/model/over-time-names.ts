/**
 * The names of what the over-time rows deploy (specs/engine/disruption), one module for every driver:
 * two Services on the `b` pods of each OS, and a UDP Service whose one backend is swapped.
 */
import type { Os } from '../../lab/contracts/cells.ts';
import { dnsLabel } from './workload-names.ts';

/** The twin Service of `os` the `twin-deleted` step deletes (and `twin-recreated` makes again). */
export function changedTwinName(os: Os): string {
  return `twin-a-${os}`;
}

/** The twin Service of `os` that stays: it must keep every endpoint answering. */
export function keptTwinName(os: Os): string {
  return `twin-b-${os}`;
}

/** The `app` label of the stateful UDP Service's pods: no other Service selects them. */
export const UDP_STATE_APP = 'udp-state';

/** The stateful UDP Service of `os`. */
export function udpStateServiceName(os: Os): string {
  return `udp-state-${os}`;
}

/** Its first backend (slot `u`, on the first node of `os`) and the one that replaces it (`v`, on the last). */
export function udpStatePod(node: string, which: 'first' | 'second'): string {
  return dnsLabel(`netexec-${node}-${which === 'first' ? 'u' : 'v'}`);
}

/** The stateful UDP Service's two backends on `nodes` (workers first): undefined without a node of `os`. */
export function udpStateBackends(
  nodes: readonly { name: string; os: Os; role: string }[],
  os: Os,
): { first: { name: string; node: string }; second: { name: string; node: string } } | undefined {
  const of = nodes.filter((n) => n.os === os);
  const ordered = [
    ...of.filter((n) => n.role === 'worker'),
    ...of.filter((n) => n.role !== 'worker'),
  ];
  const first = ordered[0];
  const last = ordered.at(-1);
  if (first === undefined || last === undefined) return undefined;
  return {
    first: { name: udpStatePod(first.name, 'first'), node: first.name },
    second: { name: udpStatePod(last.name, 'second'), node: last.name },
  };
}
