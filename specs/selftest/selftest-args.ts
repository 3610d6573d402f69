/** The options `npm run selftest --` takes (node:util parseArgs config). */
export const SELFTEST_ARGS = {
  options: { lab: { type: 'string' }, fault: { type: 'string', multiple: true } },
  allowPositionals: false,
} as const;
