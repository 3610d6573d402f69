/** Profiles: the expected result per cell, with reason and upstream link (specs/profiles/*.yaml). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { z } from 'zod';
import { globToRegExp } from '../../lab/text/glob.ts';
import { Outcome, type RunInfo, type Verdict } from '../../lab/contracts/results-file.ts';
import { verdictOf } from './judge.ts';
import { DISRUPTION_ACTIONS } from '../../lab/contracts/disruptions.ts';

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
      /**
       * Only on labs that say this of themselves (RunInfo); where the lab does not
       * say, the cell accepts what it would be expected to do either way.
       */
      when: z
        .strictObject({ windowsDsr: z.boolean().optional(), outboundNat: z.boolean().optional() })
        .optional(),
    }),
  ),
  /**
   * How long after a disruption (specs/engine/disruption) a node's cells may take to be green again,
   * per action and OS of the disrupted node; where none matches, the phase's default.
   */
  recovery: z
    .array(
      z.strictObject({
        action: z.enum(DISRUPTION_ACTIONS),
        os: z.enum(['linux', 'windows']),
        boundMs: z.number().int().positive(),
        reason: z.string(),
        link: z.url().optional(),
      }),
    )
    .optional(),
});

export type Profile = z.output<typeof ProfileSchema>;

export interface Expectation {
  expected: Outcome;
  reason?: string;
  /** Which way an unknown fact was taken to be for this expectation (`with Windows DSR off`). */
  assuming?: string;
  /**
   * Where the lab does not say a fact a rule depends on: what the cell is expected to do were
   * the fact the other way, accepted as well.
   */
  otherwise?: Expectation[];
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
export type LabTraits = Pick<RunInfo, 'windowsDsr' | 'outboundNat'>;

type Fact = 'windowsDsr' | 'outboundNat';

/** Each fact a `when` may name: how it reads from the lab, and how a result names its two ways. */
const FACTS: Record<
  Fact,
  { of: (lab: LabTraits) => boolean | undefined; unknown: string; ways: [string, string] }
> = {
  windowsDsr: {
    of: (lab) => lab.windowsDsr,
    unknown: 'Windows DSR is not known on this cluster (WINDOWS_DSR=on|off states it)',
    ways: ['with Windows DSR on', 'with Windows DSR off'],
  },
  outboundNat: {
    // Labs the harness made NAT their pods' outbound traffic to the node (OUTBOUND_NAT=node).
    of: (lab) =>
      lab.outboundNat === undefined || lab.outboundNat === 'node'
        ? true
        : lab.outboundNat === 'preserve'
          ? false
          : undefined,
    unknown:
      'whether pods are NATed on their way out is not known (OUTBOUND_NAT=report; node or preserve states it)',
    ways: ['through outbound NAT', 'without outbound NAT'],
  },
};

type Facts = Partial<Record<Fact, boolean>>;

/** The first rule that matches under `facts`, as an expectation; cells nobody mentions must be Ok. */
function ruleFor(profile: Profile, cellId: string, facts: Facts): Expectation {
  const applies = (when: Profile['expectations'][number]['when']): boolean =>
    when === undefined ||
    Object.entries(when).every(([fact, value]) => facts[fact as Fact] === value);
  const rule = profile.expectations.find(
    (e) => applies(e.when) && globToRegExp(e.cells).test(cellId),
  );
  if (rule === undefined) return { expected: Outcome.Ok };
  return {
    expected: rule.expect,
    reason: rule.link === undefined ? rule.reason : `${rule.reason} (${rule.link})`,
  };
}

/**
 * The cell's expectation. Where the lab does not say a fact a matching rule names (an existing
 * cluster's DSR), unknown is not "on": what the cell would do either way is accepted, Ok first,
 * and the result says which way it went.
 */
export function expectationFor(profile: Profile, cellId: string, lab: LabTraits = {}): Expectation {
  const facts: Facts = {};
  for (const fact of Object.keys(FACTS) as Fact[]) {
    const value = FACTS[fact].of(lab);
    if (value !== undefined) facts[fact] = value;
  }
  const unknown = (Object.keys(FACTS) as Fact[]).find(
    (fact) =>
      facts[fact] === undefined &&
      profile.expectations.some(
        (e) => e.when?.[fact] !== undefined && globToRegExp(e.cells).test(cellId),
      ),
  );
  if (unknown === undefined) return ruleFor(profile, cellId, facts);
  const { unknown: why, ways } = FACTS[unknown];
  const [on, off] = [true, false].map((value, i) => {
    const e = ruleFor(profile, cellId, { ...facts, [unknown]: value });
    const said = `${why}; ${ways[i]} this cell is expected ${e.expected}`;
    return {
      ...e,
      assuming: ways[i]!,
      reason: e.reason === undefined ? said : `${said}: ${e.reason}`,
    };
  });
  if (on!.expected === off!.expected)
    return ruleFor(profile, cellId, { ...facts, [unknown]: true });
  const [first, second] = off!.expected === Outcome.Ok ? [off!, on!] : [on!, off!];
  return { ...first, otherwise: [second] };
}

/** An expectation as a cell's metadata records it: the outcome and why. */
export function expectationMeta(e: Expectation): { expected: Outcome; reason?: string } {
  return { expected: e.expected, ...(e.reason === undefined ? {} : { reason: e.reason }) };
}

/**
 * The expectation `actual` met (where the lab does not say a fact, either way's), and the
 * verdict under it; `seen` says which way the cell went, for its detail.
 */
export function settle(
  expectation: Expectation,
  actual: Outcome,
): { expected: Outcome; reason?: string; verdict: Verdict; seen?: string } {
  const way = [expectation, ...(expectation.otherwise ?? [])].find((e) => e.expected === actual);
  const met = way ?? expectation;
  return {
    ...expectationMeta(met),
    verdict: verdictOf(met.expected, actual),
    ...(way?.assuming === undefined ? {} : { seen: `${actual}, as ${way.assuming}` }),
  };
}
