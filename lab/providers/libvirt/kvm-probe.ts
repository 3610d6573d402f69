/**
 * Chooses `libvirt.driver` per hypervisor: kvm when a transient probe domain with the CPU mode
 * vagrant-libvirt uses starts there, else qemu (software emulation), with the reason for the log.
 * (/dev/kvm can exist and still fail, e.g. "failed to set MSR 0x10a" under some nested setups.)
 */
import { writeFileSync } from 'node:fs';
import type { Virsh } from './virsh.ts';

export interface DriverChoice {
  driver: 'kvm' | 'qemu';
  /** Why, in one line, for the log and `lab status`. */
  reason: string;
}

/** The smallest domain that makes QEMU initialise KVM vCPUs as vagrant-libvirt's would. */
export function kvmProbeXml(name: string): string {
  return [
    "<domain type='kvm'>",
    `  <name>${name}</name>`,
    "  <memory unit='MiB'>32</memory>",
    '  <vcpu>1</vcpu>',
    "  <os><type arch='x86_64'>hvm</type></os>",
    "  <cpu mode='host-model'/>",
    '  <devices/>',
    '</domain>',
    '',
  ].join('\n');
}

function firstError(text: string): string {
  const lines = text.split('\n').map((l) => l.trim());
  // virsh says "Failed to create domain" first; the cause (QEMU's own error) comes last.
  const cause = lines.filter((l) => /error/i.test(l)).at(-1) ?? lines.find((l) => l !== '');
  return (cause ?? 'no output').slice(0, 300);
}

/**
 * `forced` (HL_LIBVIRT_DRIVER) wins; otherwise probe, with the probe's XML written to `xmlFile`.
 * The probe domain is destroyed at once.
 */
export async function chooseDriver(
  virsh: Virsh,
  probeName: string,
  xmlFile: string,
  forced?: string,
): Promise<DriverChoice> {
  if (forced === 'kvm' || forced === 'qemu') {
    return { driver: forced, reason: `forced by HL_LIBVIRT_DRIVER=${forced}` };
  }
  const caps = await virsh.run(['domcapabilities', '--virttype', 'kvm'], { check: false });
  if (caps.exitCode !== 0) {
    return { driver: 'qemu', reason: `libvirt offers no KVM here: ${firstError(caps.stderr)}` };
  }
  // --autodestroy: the domain goes as soon as virsh exits, also if we are killed.
  writeFileSync(xmlFile, kvmProbeXml(probeName));
  const probe = await virsh.run(['create', '--autodestroy', xmlFile], {
    check: false,
    timeoutMs: 60_000,
  });
  // --autodestroy acts when libvirtd notices virsh's connection is gone, which over qemu+ssh://
  // (or after a timeout) can be late: destroy the transient probe now (no-op when it is gone).
  await virsh.run(['destroy', probeName], { check: false, timeoutMs: 30_000 });
  if (probe.exitCode === 0) return { driver: 'kvm', reason: 'a KVM probe domain started' };
  return {
    driver: 'qemu',
    reason: `KVM is unusable, using QEMU software emulation: ${firstError(probe.stderr)}`,
  };
}
