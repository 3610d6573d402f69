/** What one run of the suite found: shared by the engine (writer) and the reporter (reader). */

/** Named results a probe can come to; each cell expects one of them. */
export const Outcome = {
  /** Connected, answered, and the evidence matched (source IP, DNS answer). */
  Ok: 'ok',
  /** No answer within the probe timeout. */
  Timeout: 'timeout',
  /** Actively refused (TCP RST / ICMP port unreachable). */
  Refused: 'refused',
  /** No route to the target. */
  Unreachable: 'unreachable',
  /** The name does not resolve. */
  NxDomain: 'nxdomain',
  /** Connected, but the far end saw another source address than expected (SNAT where there should be none, or none where there should be). */
  WrongSourceIp: 'wrong-source-ip',
  /** Resolved or answered, but with the wrong address or body. */
  WrongAnswer: 'wrong-answer',
  /** The probe itself failed (exec error, bad output). */
  Error: 'error',
} as const;
export type Outcome = (typeof Outcome)[keyof typeof Outcome];

/** How a cell ended, after comparing the outcome with the profile's expectation. */
export type Verdict =
  /** Expected ok, got ok. */
  | 'pass'
  /** Expected ok (or a named failure), got something else. */
  | 'fail'
  /** The profile expects this failure and it happened: reported as skipped with the reason. */
  | 'expected-failure'
  /** The profile expects a failure but the cell passed: reported loudly (fails in strict). */
  | 'unexpected-pass'
  /** The lab cannot host this cell (e.g. no second Windows node); the reason says why. */
  | 'skipped'
  /** The lab was not ready; reported once as an infrastructure failure, not a network one. */
  | 'infra-error';

export interface Endpoint {
  os: 'linux' | 'windows' | 'external';
  /** Node name, or "outside" for the external host. */
  node: string;
  /** Pod or service name when there is one. */
  name?: string;
  /** Grid label: e.g. "linux pod", "windows service", "windows node". */
  label: string;
}

export interface CellMeta {
  /** Row id, stable kebab-case: e.g. `pod-to-pod/windows-to-linux`. Used as JUnit classname. */
  row: string;
  /** Cell id: row id plus placement and via, e.g. `pod-to-pod/windows-to-linux/cross-node/dns`. */
  cell: string;
  /** The mocha test title, e.g. `pod-to-pod windows-to-linux cross-node via dns`. */
  title: string;
  source: Endpoint;
  target: Endpoint;
  /** ip | dns | cluster-ip | node-ip */
  via: string;
  /** same-node | cross-node | "" when placement does not apply. */
  placement: string;
  /** What the profile expects here. */
  expected: Outcome;
  /** Why the profile expects a failure, with an upstream link; or why the cell is skipped. */
  reason?: string;
}

/** The one testcase a run gets when the lab cannot be opened (never a wall of network failures). */
export const LAB_READY_CELL: CellMeta = {
  row: 'infrastructure',
  cell: 'infrastructure/lab-ready',
  title: 'infrastructure lab ready',
  source: { os: 'linux', node: '-', label: 'lab' },
  target: { os: 'linux', node: '-', label: 'lab' },
  via: '',
  placement: '',
  expected: 'ok',
};

export interface CellResult extends CellMeta {
  verdict: Verdict;
  /** What the probe came to; absent when the cell was skipped or never ran. */
  actual?: Outcome;
  /** The evidence: what the far end saw, what DNS answered, the probe's error. */
  detail: string;
  durationMs: number;
  attempts: number;
}

export interface RunInfo {
  runId: string;
  lab: string;
  provider: string;
  /** True when the dataplane is emulated; every output must say so. */
  emulated: boolean;
  kubernetesVersion: string;
  cni: string;
  /** OS image per node, e.g. { cp1: "Debian 12 (emulated)" }. */
  osBuilds: Record<string, string>;
  profile: string;
  /** The profile's rule for unexpected passes; `warn` reports them without failing the run. */
  unexpectedPass?: 'fail' | 'warn';
  startedAt: string;
  finishedAt?: string;
}

/** Property names under which the engine hangs metadata on mocha Test objects for the reporter. */
export const CELL_META = 'hybridCell';
export const CELL_RESULT = 'hybridResult';
