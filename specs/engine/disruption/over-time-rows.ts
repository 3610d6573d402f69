/** The over-time rows (docs/disruption.md) as data: what is held, swapped or deleted, per OS pair. */
import type { Os } from '../../../lab/contracts/cells.ts';

export type OverTimeRow =
  | {
      /**
       * One TCP connection from the `a` pod of every node of `from` to the `a` pod of the next
       * node of `to` (another node), opened at the start and idle until the end of the rows: it
       * must answer on the same connection (the far end sees the same address and port).
       */
      kind: 'long-lived-pod-to-pod';
      from: Os;
      to: Os;
    }
  | {
      /** The same from every node of `from` to the ClusterIP of the Service of `to`'s pods. */
      kind: 'long-lived-pod-to-service';
      from: Os;
      to: Os;
    }
  | {
      /** The same from every node of `from` to the external echo, through outbound NAT. */
      kind: 'long-lived-outbound-nat';
      from: Os;
    }
  | {
      /**
       * A UDP socket bound to one source port in the `a` pod of every node of `from` sends to
       * the stateful UDP Service of `to` (by ClusterIP; or by the NodePort of each node of `to`);
       * its one backend is deleted after a second one is up: within the bound, the same
       * socket's datagrams must reach the new backend (kube-proxy clears the stale conntrack entry).
       */
      kind: 'udp-conntrack';
      from: Os;
      to: Os;
      via: 'cluster-ip' | 'node-ip';
    }
  | {
      /**
       * Two Services on the `b` pods of `to`: after one is deleted, the other must keep every
       * endpoint answering from every node of `from`; after it is made again with the same name,
       * it must answer again (by ClusterIP and by name) within the bound.
       */
      kind: 'twin-services';
      from: Os;
      to: Os;
    };

const PAIRS: readonly { from: Os; to: Os }[] = [
  { from: 'linux', to: 'linux' },
  { from: 'linux', to: 'windows' },
  { from: 'windows', to: 'linux' },
  { from: 'windows', to: 'windows' },
];

export const OVER_TIME_ROWS: readonly OverTimeRow[] = [
  ...PAIRS.map((p) => ({ kind: 'long-lived-pod-to-pod' as const, ...p })),
  ...PAIRS.map((p) => ({ kind: 'long-lived-pod-to-service' as const, ...p })),
  { kind: 'long-lived-outbound-nat', from: 'linux' },
  { kind: 'long-lived-outbound-nat', from: 'windows' },
  ...PAIRS.map((p) => ({ kind: 'udp-conntrack' as const, ...p, via: 'cluster-ip' as const })),
  ...PAIRS.map((p) => ({ kind: 'udp-conntrack' as const, ...p, via: 'node-ip' as const })),
  ...PAIRS.map((p) => ({ kind: 'twin-services' as const, ...p })),
];
