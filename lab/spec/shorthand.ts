/** Kubeinit-like shorthand: `k8s-<provider>-<cp>-<linux>-<windows>[-<hypervisors>]`. */
import type { LabSpecInput } from './lab-spec-schema.ts';

const SHORTHAND = /^k8s-(netns|libvirt)-(\d{1,2})-(\d{1,2})-(\d{1,2})(?:-(\d{1,2}))?$/;

export function isShorthand(text: string): boolean {
  return SHORTHAND.test(text);
}

/** Expands a shorthand into a spec; undefined when the text is not one. */
export function expandShorthand(text: string): LabSpecInput | undefined {
  const match = SHORTHAND.exec(text);
  if (match === null) return undefined;
  const [, provider, cp, linux, windows, hv] = match;
  const count = (n: string | undefined, prefix: string) =>
    Array.from({ length: Number(n ?? '0') }, (_, i) => `${prefix}${i + 1}`);
  const nodes = [
    ...count(cp, 'cp').map((name) => ({ name, os: 'linux', role: 'control-plane' }) as const),
    ...count(linux, 'lin').map((name) => ({ name, os: 'linux', role: 'worker' }) as const),
    ...count(windows, 'win').map((name) => ({ name, os: 'windows', role: 'worker' }) as const),
  ];
  // Lab names are at most 20 characters; the longest shorthands lose their "k8s-".
  const name = text.length > 20 ? text.slice('k8s-'.length) : text;
  const spec: LabSpecInput = { name, provider: provider as 'netns' | 'libvirt', nodes };
  if (provider === 'libvirt') {
    const hypervisors = count(hv ?? '1', 'hv').map((name, i) => ({
      name,
      uri: i === 0 ? 'qemu:///system' : `qemu+ssh://root@${name}/system`,
    }));
    spec.hypervisors = hypervisors;
    if (hypervisors.length > 1) spec.network = { mode: 'bridge', bridge: 'br-lab' };
  }
  return spec;
}
