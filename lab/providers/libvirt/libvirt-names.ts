/**
 * Names of everything a libvirt lab creates. Libvirt resources are "<lab id>_<what>": lab ids
 * are "hl-" + a DNS label, which has no "_", so the id is recovered from any name unambiguously.
 */
import { join } from 'node:path';
import type { LabPlan } from '../../plan/lab-plan.ts';

/** Prefix of every hybrid-lab resource; what `lab reap` without a lab id removes. */
export const ALL_LABS_PREFIX = 'hl-';

/** Folders of `.lab/<name>/` the provider uses itself; a hypervisor may not be named so. */
export const RESERVED_DIRS = ['logs', 'libvirt', 'netns'] as const;

/** What vagrant-libvirt puts before a machine name: domains are "<id>_<node>". */
export function domainPrefix(labId: string): string {
  return `${labId}_`;
}

export function domainName(plan: LabPlan, node: string): string {
  return `${domainPrefix(plan.id)}${node}`;
}

/** The lab network of a single-hypervisor (private mode) lab. */
export function labNetworkName(plan: LabPlan): string {
  return `${plan.id}_lab`;
}

/** Each hypervisor's Vagrant management network (DHCP; vagrant reaches the VMs on it). */
export function managementNetworkName(plan: LabPlan, hypervisor: string): string {
  return `${plan.id}_mgmt-${hypervisor}`;
}

/** The transient domain that tells whether KVM works on a hypervisor. */
export function kvmProbeName(plan: LabPlan, hypervisor: string): string {
  return `${plan.id}_kvmprobe-${hypervisor}`;
}

/** The lab id a libvirt resource name carries, or undefined when it is not a hybrid-lab one. */
export function labIdOf(name: string): string | undefined {
  return /^(hl-[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)_/.exec(name)?.[1];
}

/** `.lab/<name>/<hypervisor>/`: the Vagrant project of one hypervisor. */
export function projectDir(stateDir: string, hypervisor: string): string {
  return join(stateDir, hypervisor);
}

/** `.lab/<name>/libvirt/`: state.json, ssh_config, ssh control sockets, networks' XML. */
export function libvirtDir(stateDir: string): string {
  return join(stateDir, 'libvirt');
}

/** Where console logs, vagrant output and the external echo's log go on this host. */
export function logsDir(stateDir: string): string {
  return join(stateDir, 'logs');
}

/** The lab's ssh_config (a Host per VM, written from `vagrant ssh-config`): SSH targets of `lab provision`. */
export function sshConfigFile(stateDir: string): string {
  return join(libvirtDir(stateDir), 'ssh_config');
}
