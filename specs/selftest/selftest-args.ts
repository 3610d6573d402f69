/** The options `npm run selftest --` takes (node:util parseArgs config). */
export const SELFTEST_ARGS = {
  options: {
    lab: { type: 'string' },
    fault: { type: 'string', multiple: true },
    /** Which nodes of each OS a node fault runs on: ends (default), all, alternate. */
    nodes: { type: 'string' },
    /** Only the faults these suites witness (matrix, perf, over-time, disruptions; default: all). */
    witness: { type: 'string', multiple: true },
    /** CI's share: the faults changed since the merge base and one turn of the rest (selftest-slice.ts). */
    slice: { type: 'boolean' },
  },
  allowPositionals: false,
} as const;
