/**
 * The Windows facts catalogue: every Windows behaviour the project's Windows code relies on, which
 * no machine here can show, as one row with its sources and the tests derived from it. The command
 * catalogue beside it (windows-builtin-commands.ts) says which commands exist; this says how they,
 * and the platform around them, behave. docs/windows-facts.md is rendered from it
 * (windows-facts-page.ts) and a test keeps the two equal.
 */
import { POWERSHELL_PROGRAM_LINE } from '../remote/quote.ts';
import {
  LINUX_ONLY_IMAGE_PREFIX,
  WINDOWS_VERSION_FLOORS,
  type WindowsVersionFloor,
} from '../plan/windows-checks.ts';
import { MAX_CAPTURE_ADDRESSES } from '../cluster/windows-path-evidence.ts';
import { WINDOWS_PLATFORM_FACTS } from './windows-platform-facts.ts';
import { AGNHOST_WINDOWS, AGNHOST_WINDOWS_POWERSHELL } from './windows-image-commands.ts';

/** cmd.exe takes command lines of at most 8191 characters (Learn, "Command prompt line string limitation"). */
export const HOSTPROCESS_EXEC_LINE_LIMIT = 8191;
/** CreateProcess takes command lines of at most 32767 characters (Learn, CreateProcessW). */
export const CREATE_PROCESS_LINE_LIMIT = 32767;
/**
 * Where hcsshim puts a HostProcess container's files (jobcontainers/storage.go): C:\\hpc\\ where
 * the host binds files (Windows Server 2022), else C:\\hpc\\<container id>\\.
 */
export const HCSSHIM_ROOTFS_LOCATIONS = ['C:\\hpc\\', 'C:\\hpc\\<containerID>\\'] as const;
/** The VXLAN port pktmon's `-e` matches without one given (Learn, "pktmon filter add"). */
export const PKTMON_DEFAULT_VXLAN_PORT = 4789;

export interface WindowsFact {
  /** kebab-case; the page's heading and what code comments cite. */
  id: string;
  /** The behaviour, in the project's words. */
  fact: string;
  /** What the project's code does because of it. */
  soTheCode: string;
  /** Where it is documented: Microsoft Learn, kubernetes.io, upstream files and issues. */
  sources: readonly string[];
  /** Repository paths of the code that relies on it. */
  reliedOnBy: readonly string[];
  /** The tests derived from it: test file and the `it()` title. */
  checkedBy: readonly { file: string; test: string }[];
  /** Values the code takes from it, as the page shows them. */
  values?: Readonly<Record<string, string>>;
}

const LEARN = 'https://learn.microsoft.com/en-us';
const K8S_DOCS = 'https://kubernetes.io/docs';
const K8S = 'https://github.com/kubernetes/kubernetes/blob/master';
const HCSSHIM_JOB = 'https://github.com/microsoft/hcsshim/blob/main/internal/jobcontainers';
const SDN_DEBUG = 'https://github.com/microsoft/SDN/blob/master/Kubernetes/windows/debug';
const SWT = 'https://github.com/kubernetes-sigs/sig-windows-tools/blob/master';
const HOSTPROCESS_PAGE = `${K8S_DOCS}/tasks/configure-pod-container/create-hostprocess-pod/`;

const FACTS_TEST = 'lab/provision/windows-facts.test.ts';

/** The planner's floor a fact row states. */
function floorOf(fact: string): WindowsVersionFloor {
  const floor = WINDOWS_VERSION_FLOORS.find((f) => f.fact === fact);
  if (floor === undefined) throw new Error(`no version floor for ${fact}`);
  return floor;
}

function floorConsequence(fact: string): string {
  const floor = floorOf(fact);
  const when = floor.usedWhen === 'windows-dsr' ? ' with windows.dsr' : '';
  return `The planner refuses a kubeadm lab with Windows nodes${when} below Kubernetes ${floor.since}, naming kubernetes.version and the floor; the Windows manifests are never rendered for such a plan.`;
}

function floorTests(fact: string): { file: string; test: string }[] {
  return [
    {
      file: 'lab/plan/windows-checks.test.ts',
      test: `holds the floor of ${floorOf(fact).feature}: ${floorOf(fact).since}`,
    },
    {
      file: FACTS_TEST,
      test: 'every Windows feature the manifests use has a version floor the planner holds',
    },
  ];
}

function floorValues(fact: string): Record<string, string> {
  const floor = floorOf(fact);
  return { 'Kubernetes floor': floor.since, 'the planner names it': floor.feature };
}

const CORE_FACTS: readonly WindowsFact[] = [
  {
    id: 'openssh-powershell-exit-code',
    fact: "Windows OpenSSH runs a remote command with its DefaultShell's command switch: with Windows PowerShell 5.1 as DefaultShell, `powershell.exe -c LINE`. Under -Command the process exits 0 or 1 from the last statement's success, so an external program's exit code other than 0 or 1 becomes 1 unless the line ends with `exit $LASTEXITCODE`; $LASTEXITCODE keeps its earlier value when no program ran.",
    soTheCode:
      'Every PowerShell line the harness sends to run a program calls it with & after presetting $LASTEXITCODE to 1 (a program that cannot start stays a failure) and ends with exit $LASTEXITCODE, so 3010 (reboot), 75 (try again) and 3 (artifact missing) reach the step runner.',
    sources: [
      'https://github.com/PowerShell/Win32-OpenSSH/wiki/DefaultShell',
      `${LEARN}/powershell/module/microsoft.powershell.core/about/about_powershell_exe?view=powershell-5.1`,
      `${LEARN}/powershell/module/microsoft.powershell.core/about/about_automatic_variables?view=powershell-5.1`,
      'https://github.com/PowerShell/PowerShell/issues/13501',
    ],
    reliedOnBy: [
      'lab/remote/quote.ts',
      'lab/provision/step-runner.ts',
      'vagrant/boxes/windows/scripts/setup-openssh.ps1',
    ],
    checkedBy: [
      {
        file: 'lab/remote/remote.test.ts',
        test: "a Windows program's exit code survives OpenSSH's PowerShell DefaultShell (powershell -c)",
      },
      {
        file: 'lab/provision/step-runner.test.ts',
        test: "a Windows step's reboot request (3010) reaches it over OpenSSH's PowerShell shell",
      },
      {
        file: FACTS_TEST,
        test: 'every line the harness sends a Windows node over SSH keeps the exit code of its program',
      },
    ],
    values: {
      'line starts with': POWERSHELL_PROGRAM_LINE.prefix,
      'line ends with': POWERSHELL_PROGRAM_LINE.suffix,
    },
  },
  {
    id: 'powershell-file-exit-code',
    fact: "`powershell.exe -File SCRIPT` exits with the number the script's `exit` names; a script that ends without `exit` exits 0 (1 after a terminating error), whatever its last program returned.",
    soTheCode:
      'Node scripts report their outcome with exit (3010, 75, 3, 2) or Stop-Hl; a script whose last statement runs a program (the HostProcess start scripts, the kubelet wrapper) ends with exit $LASTEXITCODE.',
    sources: [
      `${LEARN}/powershell/module/microsoft.powershell.core/about/about_powershell_exe?view=powershell-5.1`,
    ],
    reliedOnBy: [
      'vagrant/scripts/windows/common.ps1',
      'vagrant/scripts/windows/install-kubernetes.ps1',
      'manifests/windows/flannel-hostprocess.yaml',
      'manifests/windows/kube-proxy-hostprocess.yaml',
    ],
    checkedBy: [
      {
        file: FACTS_TEST,
        test: 'every Windows script whose last statement runs a program passes its exit code on',
      },
    ],
  },
  {
    id: 'hostprocess-version-floor',
    fact: 'HostProcess containers (windowsOptions.hostProcess) are alpha in Kubernetes 1.22 behind the WindowsHostProcessContainers feature gate, beta and on by default from 1.23, stable from 1.26; they need containerd 1.6 or later.',
    soTheCode: floorConsequence('hostprocess-version-floor'),
    sources: [
      HOSTPROCESS_PAGE,
      `${K8S_DOCS}/reference/command-line-tools-reference/feature-gates-removed/`,
      'https://github.com/kubernetes-sigs/windows-testing/pull/374',
    ],
    reliedOnBy: [
      'lab/plan/windows-checks.ts',
      'lab/provision/render-manifests.ts',
      'manifests/windows/flannel-hostprocess.yaml',
      'manifests/windows/kube-proxy-hostprocess.yaml',
      'manifests/suite/host-netexec-pod-windows.yaml',
    ],
    checkedBy: [
      ...floorTests('hostprocess-version-floor'),
      {
        file: 'lab/plan/windows-checks.test.ts',
        test: 'refuses a Windows node on Kubernetes 1.20.2, naming the field and the floor',
      },
      {
        file: 'lab/provision/render-manifests.test.ts',
        test: 'refuses HostProcess DaemonSets for a Kubernetes version without HostProcess (a plan made elsewhere)',
      },
    ],
    values: floorValues('hostprocess-version-floor'),
  },
  {
    id: 'kubelet-pki-path-floor',
    fact: "Before Kubernetes 1.23 the Windows kubelet resolved the absolute CA path kubeadm writes (/etc/kubernetes/pki/ca.crt) below its root directory, C:\\var\\lib\\kubelet\\etc\\kubernetes\\pki, which sig-windows-tools' PrepareNode.ps1 links to C:\\etc\\kubernetes\\pki; from 1.23 it reads the path as written.",
    soTheCode: `${floorConsequence('kubelet-pki-path-floor')} install-kubernetes.ps1 makes no link below C:\\var\\lib\\kubelet.`,
    sources: [
      'https://github.com/kubernetes/kubeadm/issues/2330',
      'https://github.com/kubernetes/kubernetes/pull/105992',
      'https://github.com/kubernetes-sigs/image-builder/pull/856',
      `${SWT}/hostprocess/PrepareNode.ps1`,
    ],
    reliedOnBy: ['lab/plan/windows-checks.ts', 'vagrant/scripts/windows/install-kubernetes.ps1'],
    checkedBy: floorTests('kubelet-pki-path-floor'),
    values: floorValues('kubelet-pki-path-floor'),
  },
  {
    id: 'windsr-version-floor',
    fact: "Windows kube-proxy's direct server return (--enable-dsr) needs the WinDSR feature gate: alpha (off by default) from Kubernetes 1.14, beta (on by default) from 1.33, GA and locked to on from 1.34, where naming it =true is still accepted.",
    soTheCode: floorConsequence('windsr-version-floor'),
    sources: [
      `${K8S_DOCS}/reference/command-line-tools-reference/feature-gates/`,
      `${K8S}/pkg/features/kube_features.go`,
    ],
    reliedOnBy: ['lab/plan/windows-checks.ts', 'manifests/windows/kube-proxy-hostprocess.yaml'],
    checkedBy: floorTests('windsr-version-floor'),
    values: floorValues('windsr-version-floor'),
  },
  {
    id: 'hostprocess-host-network',
    fact: 'A pod with HostProcess containers must set hostNetwork: true, and all its containers are HostProcess containers.',
    soTheCode:
      'The flannel and kube-proxy DaemonSets, the host-network netexec and the node shell pod on Windows set both.',
    sources: [HOSTPROCESS_PAGE],
    reliedOnBy: [
      'manifests/windows/flannel-hostprocess.yaml',
      'manifests/windows/kube-proxy-hostprocess.yaml',
      'manifests/suite/host-netexec-pod-windows.yaml',
      'manifests/suite/node-shell-pod-windows.yaml',
    ],
    checkedBy: [{ file: FACTS_TEST, test: 'every HostProcess pod template sets hostNetwork' }],
  },
  {
    id: 'hostprocess-sandbox-path',
    fact: "A HostProcess container runs on the host and finds its image's files, and its volumes, under $env:CONTAINER_SANDBOX_MOUNT_POINT (containerd 1.6 puts volumes only there; where the host has bind filter support hcsshim binds them at their mountPath and there too). hcsshim replaces the text `%CONTAINER_SANDBOX_MOUNT_POINT%` and `$env:CONTAINER_SANDBOX_MOUNT_POINT` in a process's command line with that folder before it starts it.",
    soTheCode:
      "Start scripts read their ConfigMaps and service account token, and the host-network netexec its agnhost, through that folder, which works with both containerd versions. In a container's command line the variable either starts a whole path argument (the DaemonSets' -File script: hcsshim's folder has no space, so the replaced path stays one argument) or stands inside double quotes of a -Command script, where the replaced path is one string.",
    sources: [HOSTPROCESS_PAGE, `${HCSSHIM_JOB}/jobcontainer.go`, `${HCSSHIM_JOB}/storage.go`],
    reliedOnBy: [
      'manifests/suite/host-netexec-pod-windows.yaml',
      'manifests/windows/flannel-hostprocess.yaml',
      'manifests/windows/kube-proxy-hostprocess.yaml',
    ],
    checkedBy: [
      {
        file: 'specs/drivers/kubernetes/windows-image-programs.test.ts',
        test: 'a container names the sandbox folder only as a whole path argument or inside double quotes of its script (hcsshim replaces the text)',
      },
      {
        file: 'lab/provision/windows-script-commands.test.ts',
        test: 'every command is defined by the project, installed by its scripts, or a documented Windows Server 2022 built-in',
      },
      {
        file: FACTS_TEST,
        test: 'every file a HostProcess start script reads from its sandbox is in a volume its container mounts',
      },
    ],
  },
  {
    id: 'hostprocess-exec-command-line',
    fact: "On a host with bind filter support (Windows Server 2022) hcsshim starts every process of a HostProcess container, execs included, as `cmd /c LINE`: cmd.exe takes at most 8191 characters and splits LINE at & | < > ^ outside double quotes. A process-isolated container's exec is a CreateProcess command line, at most 32767 characters.",
    soTheCode:
      'Path evidence sends each call only the functions it needs, without comments, base64-encoded (no cmd metacharacters), and captures at most 32 addresses; every exec the driver builds is measured against the limit of the container it runs in.',
    sources: [
      `${HCSSHIM_JOB}/jobcontainer.go`,
      `${LEARN}/troubleshoot/windows-client/shell-experience/command-line-string-limitation`,
      `${LEARN}/windows/win32/api/processthreadsapi/nf-processthreadsapi-createprocessw`,
    ],
    reliedOnBy: [
      'lab/cluster/windows-path-evidence.ts',
      'specs/drivers/kubernetes/agnhost-probe.ts',
      'specs/drivers/kubernetes/node-shell-pods.ts',
    ],
    checkedBy: [
      {
        file: 'lab/cluster/windows-path-evidence.test.ts',
        test: 'each call fits a HostProcess exec (cmd /c: 8191 characters) with as many addresses as pktmon filters',
      },
      {
        file: 'specs/drivers/kubernetes/windows-image-programs.test.ts',
        test: 'every exec the driver builds for a Windows pod fits the command line its container takes',
      },
    ],
    values: {
      'HostProcess exec (cmd.exe)': String(HOSTPROCESS_EXEC_LINE_LIMIT),
      CreateProcess: String(CREATE_PROCESS_LINE_LIMIT),
    },
  },
  {
    id: 'agnhost-windows-image',
    fact: `The Windows agnhost image carries agnhost as C:\\agnhost (no extension; its entrypoint is /agnhost), and through its busybox base curl.exe, BIND's dig.exe and PowerShell ${AGNHOST_WINDOWS_POWERSHELL} (pwsh.exe, copied from e2eteam/powershell-helper:6.2.7: not PowerShell 7) on its PATH. ${AGNHOST_WINDOWS.unknown.map((u) => `${u.name}: not known to be there (${u.why.replace(/https:\/\/\S+/g, (url) => url.split('/').slice(-2).join('/'))})`).join('; ')}. CreateProcess runs an executable file given by full path whatever its extension.`,
    soTheCode:
      "The driver's Windows probes run only programs the image is known to carry (ICMP through pwsh's .NET Ping, not ping.exe), and their pwsh code uses no syntax newer than PowerShell 6.2; the host-network netexec starts C:\\agnhost by full path through CreateProcess (ProcessStartInfo, UseShellExecute off).",
    sources: [
      `${K8S}/test/images/agnhost/Dockerfile_windows`,
      `${K8S}/test/images/agnhost/BASEIMAGE`,
      `${K8S}/test/images/busybox/Dockerfile_windows`,
      `${K8S}/test/e2e/windows/hybrid_network.go`,
      `${HCSSHIM_JOB}/jobcontainer.go`,
      `${LEARN}/windows/win32/api/processthreadsapi/nf-processthreadsapi-createprocessw`,
      `${LEARN}/dotnet/api/system.diagnostics.processstartinfo.useshellexecute`,
      `${LEARN}/dotnet/api/system.net.networkinformation.ipstatus`,
    ],
    reliedOnBy: [
      'lab/provision/windows-image-commands.ts',
      'specs/drivers/kubernetes/agnhost-probe.ts',
      'specs/drivers/kubernetes/perf-in-pod.ts',
      'manifests/suite/host-netexec-pod-windows.yaml',
    ],
    checkedBy: [
      {
        file: 'specs/drivers/kubernetes/windows-image-programs.test.ts',
        test: 'every probe the driver runs in a Windows agnhost pod starts a program the image is known to carry',
      },
      {
        file: 'specs/drivers/kubernetes/windows-image-programs.test.ts',
        test: `every pwsh command the driver runs in a Windows agnhost pod is PowerShell ${AGNHOST_WINDOWS_POWERSHELL} syntax (no PowerShell 7 operators)`,
      },
      {
        file: 'specs/drivers/kubernetes/windows-image-programs.test.ts',
        test: 'every image file a Windows container of the suite starts is one the image carries, started by path',
      },
      {
        file: 'specs/drivers/kubernetes/perf-in-pod.test.ts',
        test: 'skips Windows sources, streams to Windows, Service streams and other images, saying why',
      },
    ],
    values: Object.fromEntries(AGNHOST_WINDOWS.programs.map((p) => [p.name, p.path])),
  },
  {
    id: 'linux-only-images',
    fact: "The images the project's artifact recipe builds (hybrid-lab/…: agnhost, the cluster DNS stand-in) are built from Debian for linux/amd64 only; a Windows node cannot run them, and Kubernetes settings that name one image for both OSes put it on Windows pods too.",
    soTheCode:
      'The spec names agnhost per OS ({ linux, windows }); the planner refuses a hybrid-lab/ image for Windows nodes, naming kubeadm.agnhostImage; Windows nodes import the Windows one.',
    sources: ['vagrant/artifacts/kubernetes/build.sh'],
    reliedOnBy: [
      'lab/plan/windows-checks.ts',
      'lab/provision/artifact-catalogue.ts',
      'specs/drivers/kubernetes/suite-manifests.ts',
    ],
    checkedBy: [
      {
        file: 'lab/plan/windows-checks.test.ts',
        test: "refuses the project's Linux-only agnhost image for Windows nodes, and takes one per OS",
      },
      {
        file: 'specs/drivers/kubernetes/suite-manifests.test.ts',
        test: 'pins each pod to its node and OS, tolerates control-plane and Windows taints',
      },
    ],
    values: { 'Linux-only prefix': LINUX_ONLY_IMAGE_PREFIX },
  },
  {
    id: 'container-build-must-match-host',
    fact: "A process-isolated Windows Server container is blocked from starting when the host's build number differs from its image's (Windows Server 2022 images on Windows 11 clients are the one exception); the kubelet labels a Windows node node.kubernetes.io/windows-build with its MajorVersion.MinorVersion.BuildNumber (10.0.20348), and a multi-platform image's index gives each Windows variant's platform os.version (10.0.20348.2582).",
    soTheCode:
      "On any cluster with Windows nodes, the run reads the Windows image's index from its registry and leaves out a Windows node whose build label no variant's os.version starts with, naming both; a registry it cannot read is a warning and no node is judged by it.",
    sources: [
      `${LEARN}/virtualization/windowscontainers/deploy-containers/version-compatibility`,
      `${K8S_DOCS}/reference/labels-annotations-taints/#nodekubernetesiowindows-build`,
      'https://github.com/opencontainers/image-spec/blob/main/image-index.md',
    ],
    reliedOnBy: [
      'lab/providers/existing/node-usability.ts',
      'specs/drivers/kubernetes/image-platforms.ts',
    ],
    checkedBy: [
      {
        file: 'lab/providers/existing/node-usability.test.ts',
        test: 'leaves out a Windows node whose build the Windows image has no variant for, naming both (a container starts only on its own build)',
      },
      {
        file: 'specs/drivers/kubernetes/cluster-discovery.test.ts',
        test: "asks for the Windows image's variants only with a Windows node, and leaves out one without its build",
      },
      {
        file: 'specs/drivers/kubernetes/image-platforms.test.ts',
        test: "gives each Windows variant's os.version, asking for an index first",
      },
    ],
  },
  {
    id: 'windows-firewall-inbound',
    fact: "Windows Firewall blocks inbound connections unless a rule allows them (the default inbound action is Block). A HostProcess container's listener is an ordinary host process, under the host's firewall.",
    soTheCode:
      'configure-firewall.ps1 opens exactly the listener list of lab/provision/windows-host-listeners.ts (kubelet, kube-proxy health, NodePorts, VXLAN, the host-network netexec), which node.json carries; the netexec ports come from the constant the suite uses.',
    sources: [
      `${LEARN}/windows/win32/api/netfw/nf-netfw-inetfwpolicy2-get_defaultinboundaction`,
      HOSTPROCESS_PAGE,
      `${K8S_DOCS}/reference/networking/ports-and-protocols/`,
    ],
    reliedOnBy: [
      'lab/provision/windows-host-listeners.ts',
      'vagrant/scripts/windows/configure-firewall.ps1',
      'manifests/suite/host-netexec-pod-windows.yaml',
    ],
    checkedBy: [
      {
        file: 'lab/provision/windows-host-listeners.test.ts',
        test: "node.json's firewall rules are the listener list, on both backends",
      },
      {
        file: 'lab/provision/windows-host-listeners.test.ts',
        test: "the host-network netexec's ports (HTTP and UDP) are opened, from the same constant",
      },
      {
        file: 'lab/provision/windows-host-listeners.test.ts',
        test: 'configure-firewall.ps1 opens what node.json lists and names no port of its own',
      },
    ],
  },
  {
    id: 'service-dependencies',
    fact: 'Stop-Service and Restart-Service refuse a service that running services depend on unless -Force is given; -Force stops the dependents too.',
    soTheCode:
      'install-containerd.ps1 stops and restarts containerd (kubelet depends on it, nssm DependOnService) with -Force, after recording the running dependents, and starts them again.',
    sources: [
      `${LEARN}/powershell/module/microsoft.powershell.management/stop-service?view=powershell-5.1`,
      `${LEARN}/powershell/module/microsoft.powershell.management/restart-service?view=powershell-5.1`,
      `${LEARN}/windows/win32/services/stopping-a-service`,
    ],
    reliedOnBy: [
      'vagrant/scripts/windows/install-containerd.ps1',
      'vagrant/scripts/windows/install-kubernetes.ps1',
      'vagrant/scripts/windows/common.ps1',
    ],
    checkedBy: [
      {
        file: 'lab/provision/windows-service-dependencies.test.ts',
        test: 'every stop or restart of a service others depend on is forced, and its dependents are started again',
      },
    ],
  },
  {
    id: 'hns-adapter-rename',
    fact: "Creating an HNS network (overlay for flannel vxlan, l2bridge for host-gw) on the host's adapter binds it to a Hyper-V vSwitch: the adapter's addresses move to a new host vNIC `vEthernet (<adapter>)` with a new interface index, and the node's network flickers meanwhile.",
    soTheCode:
      'Nothing is bound to an interface before the join; external-route.ps1 runs after it, waits for the HNS network, and makes and checks the route on the interface that carries the node address then.',
    sources: [
      `${LEARN}/virtualization/windowscontainers/container-networking/architecture`,
      'https://github.com/flannel-io/flannel/issues/1111',
      `${K8S_DOCS}/concepts/services-networking/windows-networking/`,
    ],
    reliedOnBy: [
      'vagrant/scripts/windows/external-route.ps1',
      'lab/provision/provision-steps.ts',
      'lab/provision/provision-lab.ts',
    ],
    checkedBy: [
      {
        file: 'lab/provision/windows-network-steps.test.ts',
        test: 'no step before the HNS network exists binds anything to an interface',
      },
      {
        file: 'lab/provision/windows-network-steps.test.ts',
        test: 'a step after the join waits for the HNS network before it binds to an interface',
      },
    ],
  },
  {
    id: 'pktmon-encapsulation',
    fact: "pktmon's filters match a packet's outer headers unless -e is given, which applies them to the inner headers of VXLAN (default port 4789), GRE, NVGRE and IP-in-IP packets too; at most 32 filters are active at once.",
    soTheCode:
      "The evidence capture adds one filter per flow address with -e, for at most 32 addresses; the lab's VXLAN port is pktmon's default.",
    sources: [`${LEARN}/windows-server/administration/windows-commands/pktmon-filter-add`],
    reliedOnBy: ['lab/cluster/windows-path-evidence.ps1', 'lab/cluster/windows-path-evidence.ts'],
    checkedBy: [
      {
        file: 'lab/cluster/windows-path-evidence.test.ts',
        test: 'filters the capture on inner headers too (pktmon -e: the pod addresses inside VXLAN), 32 addresses at most',
      },
      { file: FACTS_TEST, test: "the lab's VXLAN port is the one pktmon -e matches" },
    ],
    values: {
      'default VXLAN port': String(PKTMON_DEFAULT_VXLAN_PORT),
      'filters at most': String(MAX_CAPTURE_ADDRESSES),
    },
  },
  {
    id: 'archive-artifacts',
    fact: 'A download saves what its URL serves: nssm is released only as a zip (nssm-2.24.zip, nssm.exe at nssm-2.24/win64/), and Windows tar.exe (bsdtar) extracts members of zip archives.',
    soTheCode:
      'The artifact catalogue gives each file one download address serving exactly that file; an archive is cached as the archive, names the member to take out, and the script that uses it unpacks it with tar.exe.',
    sources: [
      'https://nssm.cc/download',
      `${SWT}/hostprocess/PrepareNode.ps1`,
      `${SWT}/kubeadm/scripts/InstallNssm.ps1`,
      `${LEARN}/windows-server/administration/windows-commands/tar`,
    ],
    reliedOnBy: [
      'lab/provision/artifact-catalogue.ts',
      'lab/provision/node-config.ts',
      'vagrant/scripts/windows/common.ps1',
      'vagrant/scripts/windows/install-kubernetes.ps1',
    ],
    checkedBy: [
      {
        file: 'lab/provision/windows-artifacts.test.ts',
        test: 'libvirt-hybrid plans, and every artifact its Windows steps fetch has a download of exactly that file',
      },
      {
        file: 'lab/provision/windows-artifacts.test.ts',
        test: 'an artifact that names a member is an archive, and a file that is one says so',
      },
    ],
  },
  {
    id: 'vfpctrl-forms',
    fact: "vfpctrl and hnsdiag have no reference page: Microsoft shows their forms in its SDN troubleshooting guide and its published Kubernetes debug scripts (today's dumpVfpPolicies.ps1 reads a port's rules as /port <port> /get-rule-counter; VFP.psm1 uses /list-rule only with /layer and /group).",
    soTheCode:
      'The evidence script calls them only in those forms; the command catalogue names, per form, the page or script that shows it.',
    sources: [
      `${LEARN}/windows-server/networking/sdn/troubleshoot/troubleshoot-windows-server-2016-software-defined-networking-stack`,
      `${SDN_DEBUG}/dumpVfpPolicies.ps1`,
      `${SDN_DEBUG}/VFP.psm1`,
      `${SDN_DEBUG}/collectlogs.ps1`,
    ],
    reliedOnBy: [
      'lab/cluster/windows-path-evidence.ps1',
      'lab/provision/windows-builtin-commands.ts',
    ],
    checkedBy: [
      {
        file: 'lab/provision/windows-script-commands.test.ts',
        test: 'the built-in list names each command once, with its Microsoft Learn page, and only commands in use',
      },
      {
        file: 'lab/provision/windows-script-commands.test.ts',
        test: 'every command is defined by the project, installed by its scripts, or a documented Windows Server 2022 built-in',
      },
    ],
  },
];

/** Every fact: the rows above, then the platform's (windows-platform-facts.ts). */
export const WINDOWS_FACTS: readonly WindowsFact[] = [...CORE_FACTS, ...WINDOWS_PLATFORM_FACTS];
