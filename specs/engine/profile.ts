/** Profiles: the expected result per cell, with reason and upstream link (specs/profiles/*.yaml). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { z } from 'zod';
import { globToRegExp } from '../../lab/text/glob.ts';
import { Outcome, type RunInfo } from '../../lab/contracts/results-file.ts';

const PROFILES_DIR = fileURLToPath(new URL('../profiles/', import.meta.url));

const ProfileSchema = z.strictObject({
  name: z.string(),
  description: z.string(),
  /** What an expected failure that passes does to the run. */
  unexpectedPass: z.enum(['fail', 'warn']),
  /** What a cell slow against the run's own baseline does: fails it (default) or warns. */
  slow: z.enum(['fail', 'warn']).optional(),
  expectations: z.array(
    z.strictObject({
      /** Glob over cell ids: `*` within one segment, `**` across segments. */
      cells: z.string(),
      expect: z.enum(Object.values(Outcome) as [Outcome, ...Outcome[]]),
      reason: z.string(),
      link: z.url().optional(),
      /** Only on labs that say this of themselves (RunInfo); a lab that does not say is not matched. */
      when: z.strictObject({ windowsDsr: z.boolean() }).optional(),
    }),
  ),
});

export type Profile = z.output<typeof ProfileSchema>;

export interface Expectation {
  expected: Outcome;
  reason?: string;
}

/** Loads `specs/profiles/<name>.yaml`; an unknown name lists the known ones. */
export function loadProfile(name: string): Profile {
  let text: string;
  try {
    text = readFileSync(`${PROFILES_DIR}${name}.yaml`, 'utf8');
  } catch {
    throw new Error(`unknown profile "${name}" (PROFILE=strict|known-limitations)`);
  }
  const result = ProfileSchema.safeParse(parse(text));
  if (!result.success) throw new Error(`profile ${name}: ${z.prettifyError(result.error)}`);
  return result.data;
}

/** What a profile's `when` looks at: what the lab says of itself. */
export type LabTraits = Pick<RunInfo, 'windowsDsr'>;

/** The first matching expectation wins; cells nobody mentions must be Ok. */
export function expectationFor(profile: Profile, cellId: string, lab: LabTraits = {}): Expectation {
  const applies = (when: { windowsDsr: boolean } | undefined): boolean =>
    when === undefined || when.windowsDsr === lab.windowsDsr;
  const rule = profile.expectations.find(
    (e) => applies(e.when) && globToRegExp(e.cells).test(cellId),
  );
  if (rule === undefined) return { expected: Outcome.Ok };
  return {
    expected: rule.expect,
    reason: rule.link === undefined ? rule.reason : `${rule.reason} (${rule.link})`,
  };
}
