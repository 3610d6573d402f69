/**
 * junit_e2e.xml: upstream's e2e.test as its own JUnit file beside the matrix's junit_01.xml (one
 * file per engine). classname = `upstream-e2e/<sig>`, name = the spec; known limits are skipped
 * with their reason, unexpected passes fail; each cross-check disagreement is a failing testcase.
 */
import {
  upstreamRowOf,
  type UpstreamRun,
  type UpstreamTest,
} from '../../lab/contracts/upstream-results.ts';
import type { TestCase } from 'junit-report-builder';
import { xmlSafe } from '../../lab/text/escape.ts';
import { newJunitBuilder, skipWithReason } from './junit-builder.ts';
import { disagreementLine, disagreements, failureHeadline } from './upstream-text.ts';

/** The JUnit of an upstream run. */
export function renderUpstreamJunit(run: UpstreamRun): string {
  const builder = newJunitBuilder();
  const suite = builder.testSuite().name(xmlSafe(`upstream ${run.engine}`));
  suite.timestamp(run.startedAt);
  const wall =
    run.finishedAt === undefined ? NaN : Date.parse(run.finishedAt) - Date.parse(run.startedAt);
  suite.time(Number.isFinite(wall) && wall > 0 ? wall / 1000 : 0);
  const props: [string, string][] = [
    ['engine', run.engine],
    ['lab', run.lab],
    ['status', run.status],
    ['focus', run.focus],
    ['skip', run.skip],
    ['started-at', run.startedAt],
    ...(run.finishedAt === undefined ? [] : [['finished-at', run.finishedAt] as [string, string]]),
    ...(run.reason === undefined ? [] : [['reason', run.reason] as [string, string]]),
    ...(run.notes ?? []).map((note, i): [string, string] => [`note.${i + 1}`, note]),
  ];
  for (const [name, value] of props) suite.property(name, xmlSafe(value));
  if (run.status === 'skipped') {
    skipWithReason(
      suite.testCase().className('upstream-e2e').name(xmlSafe(run.engine)),
      xmlSafe(run.reason ?? 'skipped'),
    );
    return builder.build();
  }
  if (run.status === 'infra-error' && !run.tests.some((t) => t.verdict === 'infra-error')) {
    suite
      .testCase()
      .className('infrastructure')
      .name(xmlSafe(`${run.engine} ran through`))
      .error(xmlSafe(run.reason ?? 'e2e.test did not run through'), 'infra-error');
  }
  for (const test of run.tests) addTest(suite.testCase(), test);
  for (const row of disagreements(run)) {
    suite
      .testCase()
      .className('cross-check')
      .name(xmlSafe(`${row.test} vs ${row.rows.join(', ')}`))
      .failure(xmlSafe(`DISAGREEMENT: ${disagreementLine(row)}`), 'disagreement');
  }
  return builder.build();
}

function addTest(tc: TestCase, test: UpstreamTest): void {
  tc.className(upstreamRowOf(test.name))
    .name(xmlSafe(test.name))
    .time(test.durationMs / 1000);
  const message = xmlSafe(test.message ?? '');
  switch (test.verdict) {
    case 'pass':
      break;
    case 'fail':
      tc.failure(xmlSafe(failureHeadline(test.message) || 'failed'), 'failure');
      if (message !== '') tc.stacktrace(message);
      break;
    case 'unexpected-pass':
      tc.failure(
        xmlSafe(
          `UNEXPECTED PASS: listed as a limit of the lab (${test.reason ?? ''}) but passed; update specs/upstream/upstream-catalogue.yaml`,
        ),
        'unexpected-pass',
      );
      break;
    case 'expected-failure':
      skipWithReason(tc, xmlSafe(`expected failure (limit of the lab): ${test.reason ?? ''}`));
      if (message !== '') tc.standardOutput(message);
      break;
    case 'skipped':
      skipWithReason(tc, xmlSafe(test.reason ?? 'skipped'));
      break;
    case 'infra-error':
      tc.error(xmlSafe(message.split('\n')[0] ?? 'infrastructure error'), 'infra-error', message);
      break;
  }
}
