/**
 * The facts catalogue's `agnhost-windows-image` and `hostprocess-sandbox-path`, checked against
 * every command the Kubernetes driver runs in a Windows agnhost pod and every Windows container of
 * the suite's manifests.
 */
import { isIP } from 'node:net';
import { expect } from 'chai';
import {
  CREATE_PROCESS_LINE_LIMIT,
  HCSSHIM_ROOTFS_LOCATIONS,
  HOSTPROCESS_EXEC_LINE_LIMIT,
} from '../../../lab/provision/windows-facts.ts';
import { windowsContainers } from '../../../lab/testing/windows-scripts.ts';
import {
  AGNHOST_WINDOWS,
  AGNHOST_WINDOWS_POWERSHELL,
} from '../../../lab/provision/windows-image-commands.ts';
import {
  hostProcessExecLine,
  unquotedCmdMetacharacters,
  windowsCommandLine,
} from '../../../lab/testing/windows-command-line.ts';
import { hostNetworkSource, type ProbeRequest, type SuiteNode } from '../../model/lab-driver.ts';
import { expandCells } from '../../matrix/expand-cells.ts';
import { MATRIX } from '../../matrix/rows.ts';
import { fakeWorkloads } from '../../testing/fake-workloads.ts';
import { probeCommand } from './agnhost-probe.ts';
import { renderSuiteManifests, type RenderInput } from './suite-manifests.ts';

/** One request of every kind the driver probes with, over TCP and UDP where both exist. */
export const EVERY_REQUEST: readonly ProbeRequest[] = [
  { kind: 'http', url: 'http://10.244.1.5:8080/clientip' },
  { kind: 'dns', name: 'web-linux.hybrid-lab-x.svc.cluster.local' },
  { kind: 'dns-tcp', name: 'web-linux.hybrid-lab-x.svc.cluster.local' },
  { kind: 'tcp', host: '10.244.1.5', port: 8080 },
  { kind: 'icmp', host: '10.244.1.5' },
  { kind: 'udp', host: '10.244.1.5', port: 8081, message: 'clientip' },
  {
    kind: 'endpoints',
    base: 'http://10.96.0.20:80',
    service: 'web-windows',
    expect: ['a'],
    maxRequests: 20,
  },
  {
    kind: 'endpoints',
    base: 'udp://10.96.0.20:8081',
    service: 'web-windows',
    expect: ['a'],
    maxRequests: 20,
  },
];

const INPUT: RenderInput = {
  namespace: 'hybrid-lab-x',
  runId: 'x',
  lab: 'w',
  stamp: { owner: 'ada', host: 'build1', startedAt: '2026-01-01T00:00:00.000Z', pid: 4242 },
  images: { linux: 'example/agnhost:l', windows: 'example/agnhost:w' },
  pods: [{ name: 'netexec-win1-a', nodeHostname: 'win1', os: 'windows', localBackend: false }],
  serviceOses: ['windows'],
  hairpin: [],
  hostNetwork: [{ name: 'host-win1', nodeHostname: 'win1', os: 'windows' }],
};

const known = new Set(AGNHOST_WINDOWS.programs.map((p) => p.name.toLowerCase()));
const unknown = new Set(AGNHOST_WINDOWS.unknown.map((p) => p.name.toLowerCase()));

describe('Windows agnhost image: what the suite runs in it (facts catalogue)', () => {
  it('every probe the driver runs in a Windows agnhost pod starts a program the image is known to carry', () => {
    for (const request of EVERY_REQUEST) {
      const program = probeCommand('windows', request, 3000)[0]!.toLowerCase();
      expect(
        unknown.has(program),
        `${request.kind} runs ${program}, not known to be there`,
      ).to.equal(false);
      expect(known.has(program), `${request.kind} runs ${program}`).to.equal(true);
    }
  });

  it(`every pwsh command the driver runs in a Windows agnhost pod is PowerShell ${AGNHOST_WINDOWS_POWERSHELL} syntax (no PowerShell 7 operators)`, () => {
    let pwsh = 0;
    for (const request of EVERY_REQUEST) {
      const argv = probeCommand('windows', request, 3000);
      if (argv[0]!.toLowerCase() !== 'pwsh.exe') continue;
      pwsh++;
      const script = argv[argv.findIndex((a) => /^-command$/i.test(a)) + 1] ?? '';
      // Outside single-quoted strings: ?? and ??=, ?. and ?[, && and ||, the ternary, -Parallel.
      const code = script.replace(/'[^']*'/g, "''");
      for (const ps7 of [/\?\?/, /\?\.|\?\[/, /&&|\|\|/, /\s\?\s[^:]*\s:\s/, /-Parallel\b/i])
        expect(ps7.test(code), `${request.kind}: ${script} uses ${String(ps7)}`).to.equal(false);
    }
    expect(pwsh, 'the ICMP probe runs pwsh').to.be.greaterThan(0);
  });

  it('every image file a Windows container of the suite starts is one the image carries, started by path', () => {
    const manifests = renderSuiteManifests(INPUT);
    const containers = [...manifests.pods, ...manifests.hostNetwork].flatMap(
      (p) => p.spec!.containers,
    );
    const paths = new Set(AGNHOST_WINDOWS.programs.map((p) => p.path.toLowerCase()));
    let sandboxed = 0;
    for (const container of containers) {
      const line = [...(container.command ?? []), ...(container.args ?? [])].join(' ');
      for (const [, file = ''] of line.matchAll(
        /(?:\$env:|%)CONTAINER_SANDBOX_MOUNT_POINT%?\\([^"'\s;]+)/g,
      )) {
        sandboxed++;
        expect(paths.has(`c:\\${file.toLowerCase()}`), `${container.name} starts ${file}`).to.equal(
          true,
        );
        // A file without an extension runs only through CreateProcess, by its full path.
        if (!file.includes('.'))
          expect(line, container.name).to.include('UseShellExecute = $false');
      }
    }
    expect(sandboxed, 'the host-network netexec starts agnhost from its sandbox').to.be.greaterThan(
      0,
    );
  });

  it('a container names the sandbox folder only as a whole path argument or inside double quotes of its script (hcsshim replaces the text)', () => {
    const manifests = renderSuiteManifests(INPUT);
    const argvs = [
      ...[...manifests.pods, ...manifests.hostNetwork].flatMap((pod) =>
        pod.spec!.containers.map((c) => ({
          origin: `${pod.metadata?.name} ${c.name}`,
          argv: [...(c.command ?? []), ...(c.args ?? [])],
        })),
      ),
      // The HostProcess DaemonSets (flannel, kube-proxy) and the other Windows pods of manifests/.
      ...windowsContainers(),
    ];
    let seen = 0;
    for (const { origin, argv } of argvs) {
      for (const arg of argv) {
        for (const match of arg.matchAll(
          /\$env:CONTAINER_SANDBOX_MOUNT_POINT|%CONTAINER_SANDBOX_MOUNT_POINT%/g,
        )) {
          seen++;
          // The folder hcsshim puts there (C:\hpc, or C:\hpc\<id>) has no space: a path argument
          // that starts with it stays one argument; inside a script it must be a quoted string.
          const wholePath = match.index === 0 && /^\S+$/.test(arg) && !arg.includes('"');
          const quoted = arg.slice(0, match.index).split('"').length % 2 === 0;
          expect(wholePath || quoted, `${origin}: ${arg}`).to.equal(true);
        }
      }
    }
    expect(seen, 'the DaemonSets and the host-network netexec name the folder').to.be.greaterThan(
      2,
    );
    expect(HCSSHIM_ROOTFS_LOCATIONS.every((l) => !/\s/.test(l))).to.equal(true);
  });

  it('every exec the driver builds for a Windows pod fits the command line its container takes', () => {
    const nodes: SuiteNode[] = [
      { name: 'cp1', os: 'linux', role: 'control-plane', ip: '192.168.200.10' },
      { name: 'win1', os: 'windows', role: 'worker', ip: '192.168.200.11' },
      { name: 'win2', os: 'windows', role: 'worker', ip: '192.168.200.12' },
    ];
    const workloads = fakeWorkloads(nodes);
    const windowsPods = new Set(
      workloads.pods.filter((p) => p.os === 'windows').map((p) => p.name),
    );
    const hostSources = new Set(
      nodes.filter((n) => n.os === 'windows').map((n) => hostNetworkSource(n.name)),
    );
    let fromHost = 0;
    let fromPods = 0;
    for (const cell of expandCells(MATRIX, nodes)) {
      const spec = cell.probe?.(workloads);
      if (spec === undefined) continue;
      const requests: ProbeRequest[] = [spec.request];
      // A UDP probe to a name looks the name up first (kubernetes-driver.ts).
      if (spec.request.kind === 'udp' && isIP(spec.request.host) === 0)
        requests.push({ kind: 'dns', name: spec.request.host });
      for (const request of requests) {
        const argv = probeCommand('windows', request, 10_000);
        if (hostSources.has(spec.from)) {
          fromHost++;
          const line = hostProcessExecLine(argv);
          expect(line.length, cell.meta.title).to.be.at.most(HOSTPROCESS_EXEC_LINE_LIMIT);
          expect(unquotedCmdMetacharacters(line), `${cell.meta.title}: ${line}`).to.deep.equal([]);
        } else if (windowsPods.has(spec.from)) {
          fromPods++;
          expect(windowsCommandLine(argv).length, cell.meta.title).to.be.at.most(
            CREATE_PROCESS_LINE_LIMIT,
          );
        }
      }
    }
    expect(fromHost, 'cells probe from Windows host networks').to.be.greaterThan(0);
    expect(fromPods, 'cells probe from Windows pods').to.be.greaterThan(0);
  });
});
