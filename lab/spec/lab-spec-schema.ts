/** The lab spec (docs/spec.md) as a zod schema; `lab schema` prints it as JSON Schema. */
import { z } from 'zod';
import { isIpv4, parseCidr } from '../net/ipv4.ts';
import { ArtifactsSpecSchema, KubeadmSpecSchema } from './kubeadm-spec-schema.ts';

/** RFC 1123 label, as Kubernetes node names and libvirt domain names need. */
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const label = (max: number) =>
  z
    .string()
    .max(max, { error: `at most ${max} characters` })
    .regex(DNS_LABEL, { error: 'expected a DNS label: lowercase letters, digits and "-"' });

const cidr = z.string().refine((v) => parseCidr(v) !== undefined, {
  error: 'expected an IPv4 CIDR such as 10.244.0.0/16',
});

const ipv4 = z.string().refine(isIpv4, { error: 'expected an IPv4 address' });

export const NodeSpecSchema = z
  .strictObject({
    name: label(20).describe('Node name; also the Kubernetes node name.'),
    os: z.enum(['linux', 'windows']),
    role: z.enum(['control-plane', 'worker']).default('worker'),
    hypervisor: z.string().optional().describe('Hypervisor entry to place this node on.'),
    cpus: z.int().min(1).max(64).optional(),
    memory: z.int().min(256).max(262144).optional().describe('MiB'),
    box: z.string().optional().describe('Key of a box in the catalogue (built-in or `boxes`).'),
  })
  .describe('One VM or emulated node.');

export const LabSpecSchema = z
  .strictObject({
    name: label(20).describe('Lab name; prefixes every resource the lab creates (hl-<name>-).'),
    provider: z.enum(['netns', 'libvirt', 'existing']),
    cluster: z
      .enum(['emulated', 'kubeadm'])
      .optional()
      .describe(
        'netns: emulated (default) or kubeadm (real Kubernetes, Linux nodes in namespaces); libvirt: kubeadm (default) or emulated inside Linux VMs.',
      ),
    kubernetes: z
      .strictObject({
        version: z
          .string()
          .regex(/^\d+\.\d+\.\d+$/, { error: 'expected a version such as 1.30.4' })
          .default('1.30.4'),
        podCIDR: cidr.default('10.244.0.0/16'),
        serviceCIDR: cidr.default('10.96.0.0/12'),
        dnsDomain: z
          .string()
          .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/)
          .default('cluster.local'),
      })
      .prefault({}),
    cni: z
      .strictObject({
        plugin: z
          .enum(['flannel', 'bridge'])
          .default('flannel')
          .describe(
            "flannel, or bridge: Debian's CNI bridge + host-local with host-gw routes (kubeadm Linux labs).",
          ),
        backend: z.enum(['vxlan', 'host-gw']).default('vxlan'),
      })
      .prefault({}),
    network: z
      .strictObject({
        cidr: cidr.default('192.168.200.0/24').describe('The lab network every node is on.'),
        mode: z.enum(['private', 'bridge']).default('private'),
        bridge: z
          .string()
          .regex(/^[A-Za-z0-9_.-]{1,15}$/, { error: 'expected a Linux interface name' })
          .optional()
          .describe('Host bridge shared by several hypervisors (mode: bridge).'),
      })
      .prefault({}),
    hypervisors: z
      .array(
        z.strictObject({
          name: label(20),
          uri: z
            .string()
            .regex(/^qemu(\+(ssh|tcp|tls|unix))?:\/\/[^\s]*\/(system|session)(\?\S*)?$/, {
              error: 'expected a libvirt URI such as qemu:///system or qemu+ssh://root@host/system',
            }),
        }),
      )
      .optional(),
    nodes: z.array(NodeSpecSchema).default([]),
    boxes: z
      .record(
        label(40),
        z.strictObject({ os: z.enum(['linux', 'windows']), name: z.string().min(1) }),
      )
      .optional()
      .describe('Extra boxes: key → Vagrant box name and the OS it carries.'),
    external: z
      .strictObject({
        target: z.union([z.literal('auto'), ipv4]).default('auto'),
        cidr: cidr.default('198.51.100.0/24').describe('The stand-in outside world (auto).'),
      })
      .prefault({}),
    windows: z
      .strictObject({
        dsr: z
          .boolean()
          .default(false)
          .describe(
            "Direct server return in Windows kube-proxy (--enable-dsr with the WinDSR feature gate): needed for externalTrafficPolicy Local to keep the client's address.",
          ),
      })
      .prefault({}),
    kubeconfig: z.string().optional().describe('existing provider: path to the kubeconfig.'),
    artifacts: ArtifactsSpecSchema.optional(),
    kubeadm: KubeadmSpecSchema.optional(),
  })
  .describe('A hybrid-lab lab spec.');

export type LabSpec = z.output<typeof LabSpecSchema>;
export type LabSpecInput = z.input<typeof LabSpecSchema>;
export type NodeSpec = z.output<typeof NodeSpecSchema>;

/** The JSON Schema of the spec, for editor completion. */
export function labSpecJsonSchema(): unknown {
  return z.toJSONSchema(LabSpecSchema, { io: 'input' });
}
