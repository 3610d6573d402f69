/** Globs over slash-separated ids (cell ids, profile keys): `*` within a segment, `**` across. */

// Not cached: compiling is cheap next to a probe, and a cache would hide a changed glob rule from
// every test after the first (mutation testing runs them all in one process).
export function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*');
  return new RegExp(`^${body}$`);
}
