/** What `up` learnt and started, kept in `.lab/<name>/libvirt/state.json` for attach and down. */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '../../errors.ts';

export interface HypervisorState {
  name: string;
  uri: string;
  driver: 'kvm' | 'qemu';
  /** Why that driver (the KVM probe's finding). */
  driverReason: string;
  managementNetwork: string;
  managementCidr: string;
  /** The lab network this hypervisor carries (private mode). */
  labNetwork: string | null;
  projectDir: string;
}

export interface LibvirtState {
  format: 1;
  labId: string;
  hypervisors: HypervisorState[];
  /** The lab's ssh_config (mode 0600). */
  sshConfig: string;
  /** ssh master pid per node. */
  masters: Record<string, number>;
  /** Milliseconds per phase of `up`, and boot time per node. */
  timings: Record<string, number>;
}

export class LibvirtStateStore {
  readonly file: string;

  constructor(readonly dir: string) {
    this.file = join(dir, 'state.json');
  }

  exists(): boolean {
    return existsSync(this.file);
  }

  read(): LibvirtState {
    try {
      return JSON.parse(readFileSync(this.file, 'utf8')) as LibvirtState;
    } catch (error) {
      throw new ProviderError(`no libvirt lab state at ${this.file}`, {
        cause: error,
        hint: 'run `lab up` (after `lab reap` if a crash left pieces)',
      });
    }
  }

  write(state: LibvirtState): void {
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(this.file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  }

  remove(): void {
    rmSync(this.file, { force: true });
  }
}
