/**
 * Reads the JUnit XML that e2e.test (ginkgo v1.11's reporter) writes: one `<testsuite>` of
 * `<testcase name classname time>` with an optional `<failure type>`, `<skipped>` and
 * `<system-out>`. That writer's shape only, not JUnit at large.
 */
import { LabError } from '../../lab/errors.ts';

export type GinkgoState = 'passed' | 'failed' | 'skipped';

export interface GinkgoCase {
  /** The spec's full name (ginkgo joins its component texts with spaces). */
  name: string;
  state: GinkgoState;
  /** The failure's text: where, what, where again. */
  message?: string;
  durationMs: number;
}

/** A JUnit file that is not ginkgo's; names the file. */
export class GinkgoJunitError extends LabError {
  override readonly name = 'GinkgoJunitError';
}

/** The names ginkgo gives failed suite hooks: their failure stops every spec from running. */
export const SUITE_HOOKS = ['BeforeSuite', 'AfterSuite', 'SynchronizedBeforeSuite'] as const;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML character references and the five named entities, decoded. */
export function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    return ENTITIES[ref] ?? whole;
  });
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return match === null ? undefined : decodeXml(match[1]!);
}

/** Every testcase of one ginkgo JUnit document; `source` names it in errors. */
export function parseGinkgoJunit(xml: string, source: string): GinkgoCase[] {
  if (!/<testsuite[\s>]/.test(xml)) {
    throw new GinkgoJunitError(`${source} holds no <testsuite>: not a JUnit file of e2e.test`);
  }
  const cases: GinkgoCase[] = [];
  const testcase = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (const match of xml.matchAll(testcase)) {
    const tag = match[1]!;
    const body = match[3] ?? '';
    const name = attribute(tag, 'name');
    if (name === undefined || name === '') {
      throw new GinkgoJunitError(`${source}: a <testcase> without a name`);
    }
    const seconds = Number(attribute(tag, 'time') ?? '0');
    const failure = /<failure\b[^>]*>([\s\S]*?)<\/failure>|<failure\b[^>]*\/>/.exec(body);
    const state: GinkgoState =
      failure !== null ? 'failed' : /<skipped\b/.test(body) ? 'skipped' : 'passed';
    cases.push({
      name,
      state,
      ...(failure === null ? {} : { message: decodeXml(failure[1] ?? '').trim() }),
      durationMs: Number.isFinite(seconds) ? Math.round(seconds * 1000) : 0,
    });
  }
  return cases;
}

/**
 * The cases of several files (one per parallel ginkgo node): a spec runs on one node and is
 * listed as skipped by the others, so its most telling state wins.
 */
export function mergeGinkgoCases(files: readonly GinkgoCase[][]): GinkgoCase[] {
  const rank: Record<GinkgoState, number> = { skipped: 0, passed: 1, failed: 2 };
  const byName = new Map<string, GinkgoCase>();
  for (const cases of files) {
    for (const c of cases) {
      const known = byName.get(c.name);
      if (known === undefined || rank[c.state] > rank[known.state]) byName.set(c.name, c);
    }
  }
  return [...byName.values()];
}
