/** A passing Linux pod-to-pod cell from `src` to `dst` (cross-node, via ip), for writers' and judges' unit tests. */
import type { CellResult } from '../../lab/contracts/results-file.ts';

/** `row` names the row (`pod-to-pod/linux-to-linux`, `perf/tcp-rr/pod/linux-to-linux`, …); `patch` overrides any field. */
export function linuxCell(
  row: string,
  src: string,
  dst: string,
  patch: Partial<CellResult> = {},
): CellResult {
  return {
    row,
    cell: `${row}/cross-node/${src}/${dst}/ip`,
    title: `${row.replaceAll('/', ' ')} ${src}-to-${dst} cross-node via ip`,
    source: { os: 'linux', node: src, label: 'linux pod' },
    target: { os: 'linux', node: dst, label: 'linux pod' },
    via: 'ip',
    placement: 'cross-node',
    expected: 'ok',
    verdict: 'pass',
    actual: 'ok',
    detail: '',
    durationMs: 250,
    attempts: 1,
    ...patch,
  };
}
