/** The options `npm run selftest --` takes (node:util parseArgs config). */
export const SELFTEST_ARGS = {
  options: {
    lab: { type: 'string' },
    fault: { type: 'string', multiple: true },
    /** Each fault on every node it may act on, not only the first and last of each OS. */
    'all-nodes': { type: 'boolean' },
  },
  allowPositionals: false,
} as const;
