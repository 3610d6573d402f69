/** Builders of history records for unit tests and sample pages; never used by the CLI. */
import { computeTotals, type ResultsFile, type Verdict } from '../contracts/results-file.ts';
import { RECORD_FORMAT, type RecordedCell, type RunRecord } from '../history/run-record.ts';

/** A small matrix: cell id → row id. */
export const FIXTURE_CELLS = {
  'pod-to-pod/windows-to-linux/cross-node/ip': 'pod-to-pod/windows-to-linux',
  'pod-to-pod/windows-to-linux/cross-node/dns': 'pod-to-pod/windows-to-linux',
  'pod-to-service/linux-to-windows/cluster-ip': 'pod-to-service/linux-to-windows',
  'outbound-nat/windows/win1/ip': 'outbound-nat/windows',
  'dns/short-name/windows/dns': 'dns/short-name',
} as const;

/** A cell record; failures carry a detail like the suite's. */
export function cell(id: string, verdict: Verdict): RecordedCell {
  const row = (FIXTURE_CELLS as Record<string, string>)[id] ?? id.split('/').slice(0, 2).join('/');
  return {
    cell: id,
    row,
    title: id.replaceAll('/', ' '),
    verdict,
    expected: 'ok',
    ...(verdict === 'pass' ? { actual: 'ok' } : { actual: 'timeout', detail: `${id}: timed out` }),
  };
}

/** A run on day `day` of November 2026 where every fixture cell passes unless `verdicts` says otherwise. */
export function run(
  day: number,
  verdicts: Partial<Record<string, Verdict>> = {},
  overrides: Partial<RunRecord> = {},
): RunRecord {
  const ids = [...new Set([...Object.keys(FIXTURE_CELLS), ...Object.keys(verdicts)])];
  const cells = ids.map((id) => cell(id, verdicts[id] ?? 'pass'));
  const failed = cells.some((c) => c.verdict === 'fail' || c.verdict === 'unexpected-pass');
  const startedAt = new Date(Date.UTC(2026, 10, day, 2, 17)).toISOString();
  return {
    format: RECORD_FORMAT,
    preset: 'hybrid',
    runId: `run-${String(day).padStart(2, '0')}`,
    lab: 'hybrid',
    provider: 'netns',
    emulated: true,
    profile: 'strict',
    startedAt,
    status: failed ? 'failed' : 'passed',
    addedAt: startedAt,
    cells,
    ...overrides,
  };
}

/** A complete results.json document (lab/contracts/results-file.ts) with these cells, totals counted. */
export function resultsDocument(
  cells: { cell: string; verdict: Verdict; detail?: string }[],
  extra: Partial<Omit<ResultsFile, 'run'>> & { run?: Partial<ResultsFile['run']> } = {},
): ResultsFile {
  const full = cells.map((c) => ({
    row: c.cell.split('/').slice(0, 2).join('/'),
    title: c.cell.replaceAll('/', ' '),
    source: { os: 'linux' as const, node: 'cp1', label: 'linux pod' },
    target: { os: 'linux' as const, node: 'lin1', label: 'linux pod' },
    via: 'ip',
    placement: 'cross-node',
    expected: 'ok' as const,
    durationMs: 12,
    attempts: 1,
    ...c,
    detail: c.detail ?? 'far end saw 10.244.0.2',
  }));
  const { run, ...rest } = extra;
  return {
    run: {
      runId: '20261122-abc123',
      lab: 'hybrid',
      provider: 'netns',
      emulated: true,
      kubernetesVersion: '1.30.4 (emulated)',
      cni: 'flannel/vxlan (emulated)',
      osBuilds: { cp1: 'Linux netns (emulated)' },
      profile: 'strict',
      startedAt: '2026-11-22T03:09:21.643Z',
      finishedAt: '2026-11-22T03:09:26.722Z',
      ...run,
    },
    cells: full,
    totals: computeTotals(full, []),
    other: [],
    ...rest,
  };
}
