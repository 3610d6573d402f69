/**
 * The upstream catalogue (upstream-catalogue.yaml): which e2e.test specs run by default, which
 * are left out and why, the lab's known limits, and the matrix rows each spec covers. Its only
 * reader; a bad entry is an error naming its field path.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { z } from 'zod';
import { LabError } from '../../lab/errors.ts';
import { formatIssues } from '../../lab/spec/format-issues.ts';

export const UPSTREAM_CATALOGUE = fileURLToPath(
  new URL('upstream-catalogue.yaml', import.meta.url),
);

/** A regular expression in the subset Go's RE2 (ginkgo) and JavaScript read alike. */
const pattern = z
  .string()
  .min(1)
  .refine((p) => !/\(\?[=!<]|\\[1-9]/.test(p), {
    error: 'lookarounds and backreferences: Go (ginkgo) cannot read them',
  })
  .refine(
    (p) => {
      try {
        new RegExp(p);
        return true;
      } catch {
        return false;
      }
    },
    { error: 'not a regular expression' },
  );

/** What an entry's `when` looks at: what the lab says of itself. */
const WhenSchema = z.strictObject({ clusterDns: z.enum(['coredns', 'hl-cluster-dns']) });

const CatalogueSchema = z.strictObject({
  universe: pattern,
  focus: z.array(z.strictObject({ pattern, why: z.string().min(1) })).min(1),
  leftOut: z.array(
    z.strictObject({ pattern, reason: z.string().min(1), when: WhenSchema.optional() }),
  ),
  knownLimits: z.array(
    z.strictObject({
      /** The full spec name, exactly. */
      test: z.string().min(1),
      reason: z.string().min(1),
      when: WhenSchema.optional(),
    }),
  ),
  crossCheck: z.array(
    z.strictObject({
      test: z.string().min(1),
      rows: z.array(z.string().regex(/^[a-z0-9-]+(\/[a-z0-9-]+)+$/)).min(1),
      via: z.enum(['ip', 'dns', 'cluster-ip', 'node-ip']).optional(),
      note: z.string().optional(),
    }),
  ),
});
export type UpstreamCatalogue = z.output<typeof CatalogueSchema>;
export type CrossCheckEntry = UpstreamCatalogue['crossCheck'][number];

/** What entries' `when` may ask of a lab. */
export interface LabTraits {
  clusterDns: 'coredns' | 'hl-cluster-dns';
}

/** The catalogue is malformed; `issues` name each field. */
export class UpstreamCatalogueError extends LabError {
  override readonly name = 'UpstreamCatalogueError';
}

/** Reads and checks the catalogue (`file`, default the project's). */
export function loadUpstreamCatalogue(file: string = UPSTREAM_CATALOGUE): UpstreamCatalogue {
  return parseUpstreamCatalogue(readFileSync(file, 'utf8'), file);
}

/** Checks catalogue text; `source` names it in errors. */
export function parseUpstreamCatalogue(text: string, source: string): UpstreamCatalogue {
  const parsed = CatalogueSchema.safeParse(parse(text));
  if (!parsed.success) {
    const lines = formatIssues(parsed.error.issues).map(
      (i) => `  ${i.path === '' ? '(document)' : i.path}: ${i.message}`,
    );
    throw new UpstreamCatalogueError(`invalid upstream catalogue ${source}:\n${lines.join('\n')}`);
  }
  const names = parsed.data.knownLimits.map((k) => k.test);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) {
    throw new UpstreamCatalogueError(
      `invalid upstream catalogue ${source}: knownLimits lists "${twice}" twice`,
    );
  }
  return parsed.data;
}

const applies = (when: { clusterDns: string } | undefined, lab: LabTraits): boolean =>
  when === undefined || when.clusterDns === lab.clusterDns;

/** The ginkgo focus and skip of a run: the user's where given, else the catalogue's defaults. */
export interface Selection {
  focus: string;
  skip: string;
  /** Whose focus: the catalogue's default, its cross-check specs, or the user's `--focus`. */
  focusKind: 'default' | 'cross-checked' | 'given';
}

/** `text` as a regular expression matching it literally (in Go's RE2 and JavaScript alike). */
export function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What a run asks for: its own focus or skip, or only the specs the cross-check pairs with rows. */
export interface SelectionRequest {
  focus?: string;
  skip?: string;
  /** Focus on exactly the catalogue's cross-check specs (CI's short run). */
  crossChecked?: boolean;
}

/** The selection of a run on `lab`; `--focus` and `--skip` replace the defaults they name. */
export function selectionFor(
  catalogue: UpstreamCatalogue,
  lab: LabTraits,
  given: SelectionRequest = {},
): Selection {
  const either = (patterns: string[]) => patterns.map((p) => `(${p})`).join('|');
  // ginkgo matches `[Top Level] <name>`: anchored at the end only.
  const crossChecked = either(catalogue.crossCheck.map((c) => `${literal(c.test)}$`));
  return {
    focus:
      given.focus ??
      (given.crossChecked === true ? crossChecked : either(catalogue.focus.map((f) => f.pattern))),
    skip:
      given.skip ??
      either(catalogue.leftOut.filter((l) => applies(l.when, lab)).map((l) => l.pattern)),
    focusKind:
      given.focus !== undefined
        ? 'given'
        : given.crossChecked === true
          ? 'cross-checked'
          : 'default',
  };
}

/** Why the catalogue leaves `name` out on `lab`, if it does. */
export function leftOutReason(
  catalogue: UpstreamCatalogue,
  name: string,
  lab: LabTraits,
): string | undefined {
  return catalogue.leftOut.find((l) => applies(l.when, lab) && new RegExp(l.pattern).test(name))
    ?.reason;
}

/** Why `name` is expected to fail on `lab`, if it is. */
export function knownLimitReason(
  catalogue: UpstreamCatalogue,
  name: string,
  lab: LabTraits,
): string | undefined {
  return catalogue.knownLimits.find((k) => k.test === name && applies(k.when, lab))?.reason;
}
