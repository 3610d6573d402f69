/** A libvirt plan for unit tests: the libvirt-emulated preset's shape, through the real planner. */
import { planLab } from '../plan/plan-lab.ts';
import { LabSpecSchema } from '../spec/lab-spec-schema.ts';

export function libvirtPlan(extra: Record<string, unknown> = {}) {
  const spec = LabSpecSchema.parse({
    name: 'unit-a',
    provider: 'libvirt',
    cluster: 'emulated',
    nodes: [
      { name: 'cp1', os: 'linux', role: 'control-plane', memory: 768 },
      { name: 'lin1', os: 'linux', memory: 768 },
      { name: 'win1', os: 'windows', memory: 768 },
    ],
    ...extra,
  });
  return planLab(spec, 'unit');
}
