/**
 * `.lab/<name>/faults.json`: the faults applied to a lab and how to undo each, so `lab heal`
 * from any process reverts exactly them. Records of an earlier bring-up of the lab are stale.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FaultError } from './fault-error.ts';
import type { KubeProxyQuirk } from '../cluster/control/cluster-state.ts';

/** How to revert one change; each step is idempotent so a heal can be retried. */
export type UndoStep =
  /** Runs argv on the node; when `missingOk` matches the error output, the thing is gone already. */
  | { kind: 'shell'; node: string; argv: string[]; input?: string; missingOk?: string }
  /** Puts the node's Windows CNI config back. */
  | { kind: 'windows-cni'; node: string; config: unknown }
  /** Starts the cluster DNS pod's server again (when it is not running). */
  | { kind: 'dns-start' }
  /** Puts back the node's kube-proxy view: the nodes whose endpoints it left out before. */
  | { kind: 'stale-proxy'; node: string; ignored: string[] }
  /** Puts back whether the node's kube-proxy ignored externalTrafficPolicy Local before. */
  | { kind: 'local-policy'; node: string; ignored: boolean }
  /** Puts back whether the node's kube-proxy kept every endpoint it programmed before. */
  | { kind: 'keep-endpoints'; node: string; keeps: boolean }
  /** Puts back what the node's kube-proxy got wrong before. */
  | { kind: 'proxy-quirks'; node: string; quirks: KubeProxyQuirk[] }
  /** Puts back whether the cluster DNS answered the node's pods with CNAMEs alone before. */
  | { kind: 'bare-cname'; node: string; bare: boolean };

export interface AppliedFault {
  fault: string;
  /** Nodes it acts on; empty for lab-wide faults. */
  nodes: string[];
  appliedAt: string;
  /** In the order the changes were made; heal runs them backwards. */
  undo: UndoStep[];
}

interface FaultsFile {
  format: 1;
  labId: string;
  /** When the lab was brought up; a record from another bring-up is ignored. */
  labUpAt: string;
  applied: AppliedFault[];
}

export class FaultRecords {
  readonly file: string;

  constructor(
    /** `.lab/<name>/`. */
    dir: string,
    private readonly labId: string,
    private readonly labUpAt: string,
  ) {
    this.file = join(dir, 'faults.json');
  }

  /** The faults applied to this bring-up of the lab, oldest first. */
  read(): AppliedFault[] {
    if (!existsSync(this.file)) return [];
    let data: FaultsFile;
    try {
      data = JSON.parse(readFileSync(this.file, 'utf8')) as FaultsFile;
    } catch (error) {
      throw new FaultError(`cannot read the applied faults in ${this.file}`, {
        cause: error,
        hint: 'if the lab was rebuilt since, remove the file; else `lab down` and `lab up` give a clean lab',
      });
    }
    return data.labId === this.labId && data.labUpAt === this.labUpAt ? data.applied : [];
  }

  /** Writes atomically; an empty list removes the file. */
  write(applied: readonly AppliedFault[]): void {
    if (applied.length === 0) {
      rmSync(this.file, { force: true });
      return;
    }
    const data: FaultsFile = {
      format: 1,
      labId: this.labId,
      labUpAt: this.labUpAt,
      applied: [...applied],
    };
    writeFileSync(`${this.file}.tmp`, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
    renameSync(`${this.file}.tmp`, this.file);
  }
}
