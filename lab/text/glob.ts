/** Globs over slash-separated ids (cell ids, profile keys): `*` within a segment, `**` across. */

const compiled = new Map<string, RegExp>();

export function globToRegExp(glob: string): RegExp {
  let re = compiled.get(glob);
  if (re === undefined) {
    const body = glob
      .split('**')
      .map((part) =>
        part
          .split('*')
          .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('[^/]*'),
      )
      .join('.*');
    re = new RegExp(`^${body}$`);
    compiled.set(glob, re);
  }
  return re;
}
