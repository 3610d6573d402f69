/** Shared fixtures of the matrix expansion tests: a five-node hybrid lab and its workloads. */
import type { SuiteNode, Workloads } from '../model/lab-driver.ts';
import { fakeWorkloads } from './fake-workloads.ts';

export const node = (
  name: string,
  os: 'linux' | 'windows',
  role: 'control-plane' | 'worker',
  ip: string,
): SuiteNode => ({ name, os, role, ip });
export const HYBRID = [
  node('cp1', 'linux', 'control-plane', '192.168.200.10'),
  node('lin1', 'linux', 'worker', '192.168.200.11'),
  node('lin2', 'linux', 'worker', '192.168.200.12'),
  node('win1', 'windows', 'worker', '192.168.200.13'),
  node('win2', 'windows', 'worker', '192.168.200.14'),
];

export const workloads = (nodes: SuiteNode[]): Workloads => fakeWorkloads(nodes);
