/**
 * Adapter over junit-report-builder: its CommonJS shape, and what it cannot express — a skip's
 * reason as the element's text (the one form every Jenkins schema takes), Surefire's rerun
 * elements, and a <testsuites> without the `skipped` count xunit-plugin's junit-10.xsd refuses.
 */
import junitReportBuilder from 'junit-report-builder';
import type { Builder, TestCase } from 'junit-report-builder';

// The typings declare `export default builder`, but the CommonJS build assigns the builder to
// module.exports, so Node's default import is the builder itself; accept either shape.
const imported = junitReportBuilder as unknown as Builder | { default: Builder };
const root: Builder = 'newBuilder' in imported ? imported : imported.default;

/** A fresh, empty report builder (the package's default export is a shared singleton). */
export function newJunitBuilder(): Builder {
  return root.newBuilder();
}

type XmlElement = ReturnType<TestCase['build']>;
type XmlParent = Parameters<TestCase['build']>[0];
type XmlChild = XmlElement['children'][number] & {
  name?: string;
  text(value: string): XmlElement;
  insertBefore(name: string, attributes?: Record<string, string>): XmlElement;
};

/** Changes what the builder makes of `testCase` once it is built. */
function afterBuild(testCase: TestCase, change: (element: XmlElement) => void): TestCase {
  const build = testCase.build.bind(testCase);
  testCase.build = (parent: XmlParent): XmlElement => {
    const element = build(parent);
    change(element);
    return element;
  };
  return testCase;
}

const childNamed = (element: XmlElement, name: string): XmlChild | undefined =>
  (element.children as XmlChild[]).find((child) => child.name === name);

/** Marks a test case skipped as `<skipped>reason</skipped>`. */
export function skipWithReason(testCase: TestCase, reason: string): TestCase {
  testCase.skipped();
  return afterBuild(testCase, (element) => {
    childNamed(element, 'skipped')?.text(reason);
  });
}

/** One Surefire rerun element: a retry that failed (`rerunFailure`) or a failure a retry hid (`flakyFailure`). */
export interface Rerun {
  element: 'flakyFailure' | 'rerunFailure';
  message: string;
  type: string;
  stackTrace: string;
}

/** Adds Surefire's rerun elements to a test case, before its system-out. */
export function withReruns(testCase: TestCase, reruns: readonly Rerun[]): TestCase {
  if (reruns.length === 0) return testCase;
  return afterBuild(testCase, (element) => {
    const out = childNamed(element, 'system-out');
    for (const rerun of reruns) {
      const attributes = { message: rerun.message, type: rerun.type };
      const added =
        out === undefined
          ? element.ele(rerun.element, attributes)
          : out.insertBefore(rerun.element, attributes);
      added.ele('stackTrace', rerun.stackTrace);
    }
  });
}

/** The document without a `skipped` count on <testsuites> (each <testsuite> keeps its own). */
export function withoutSuitesSkipped(xml: string): string {
  return xml.replace(/<testsuites\b[^>]*>/, (tag) => tag.replace(/ skipped="\d+"/, ''));
}
